package dupscope.dedup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * A RocketMQ {@link MessageListenerConcurrently} that writes the dedup log around yours: for every message of a
 * call it opens a {@link DedupLog.Delivery} (bizKey from {@code getKeys()}, msgId, topic, retry count, queue and
 * offset), runs your listener, then writes the business effect from what your listener answered:
 *
 * <ul>
 *   <li>{@code CONSUME_SUCCESS}: {@code executed}; for a batch, only up to {@code context.getAckIndex()}, the
 *       messages after it {@code failed} (the client sends them back);</li>
 *   <li>{@code RECONSUME_LATER}, {@code null}, or an exception: {@code failed} (the exception's {@code toString()} as
 *       {@code error}); the exception is rethrown unchanged;</li>
 *   <li>nothing, for a message whose last line is a {@code hit} (it was skipped) or whose effect your listener
 *       logged itself ({@code executed}/{@code failed} through {@link #delivery}).</li>
 * </ul>
 *
 * The effect line carries the layer and {@code dedupKey} of the message's last {@code pass}, or the listener's
 * default layer ({@link DedupLog.Layer#NONE} unless given). Inside your listener, {@code DedupLogListener.delivery(msg)}
 * is the message's delivery, for the layers' own lines:
 *
 * <pre>{@code
 * consumer.registerMessageListener(new DedupLogListener(dedupLog, (msgs, context) -> {
 *     for (MessageExt msg : msgs) {
 *         DedupLog.Delivery d = DedupLogListener.delivery(msg);
 *         String key = "points:" + msg.getKeys();
 *         if (!Boolean.TRUE.equals(redis.opsForValue().setIfAbsent(key, "1", Duration.ofDays(1)))) {
 *             d.hit(DedupLog.Layer.REDIS, key);
 *             continue;
 *         }
 *         d.pass(DedupLog.Layer.REDIS, key, 86_400_000L);
 *         points.award(msg);
 *     }
 *     return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
 * }));
 * }</pre>
 *
 * The wrapper never changes what your listener returns or throws: a problem of its own (a message whose KEYS and
 * msgId are both unusable as a bizKey, an instance supplier that fails) costs that message its lines, never its
 * consumption, and goes to the log's {@code onError} handler.
 */
public final class DedupLogListener implements MessageListenerConcurrently {

    /** Where a message's business key is. The default is {@code getKeys()}, or the msgId when that is empty. */
    public interface BizKey {
        String of(MessageExt msg);
    }

    /** The deliveries of the calls in progress, by message identity: {@link #delivery} reads it from any thread. */
    private static final Map<MessageExt, DedupLog.Delivery> ACTIVE =
            Collections.synchronizedMap(new IdentityHashMap<MessageExt, DedupLog.Delivery>());

    private final DedupLog log;
    private final MessageListenerConcurrently listener;
    private final DedupLog.Layer defaultLayer;
    private final BizKey bizKey;

    /** Effect lines without a {@code pass} before them get {@code layer: "none"}; the bizKey is {@code getKeys()}. */
    public DedupLogListener(DedupLog log, MessageListenerConcurrently listener) {
        this(log, listener, DedupLog.Layer.NONE, null);
    }

    /**
     * @param defaultLayer the layer of effect lines for messages your listener wrote no {@code pass} for
     * @param bizKey where the business key is, when it is not the message's KEYS; null for KEYS
     */
    public DedupLogListener(DedupLog log, MessageListenerConcurrently listener, DedupLog.Layer defaultLayer, BizKey bizKey) {
        if (log == null || listener == null || defaultLayer == null) {
            throw new IllegalArgumentException("log, listener and defaultLayer are required");
        }
        this.log = log;
        this.listener = listener;
        this.defaultLayer = defaultLayer;
        this.bizKey = bizKey;
    }

    /**
     * The delivery of {@code msg} while a {@code DedupLogListener} is consuming it (from any thread), else null
     * (a message it did not log, or a call that has returned).
     */
    public static DedupLog.Delivery delivery(MessageExt msg) {
        return ACTIVE.get(msg);
    }

    @Override
    public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext context) {
        MessageQueue mq = context == null ? null : context.getMessageQueue();
        List<MessageExt> opened = new ArrayList<MessageExt>(msgs.size());
        List<DedupLog.Delivery> deliveries = new ArrayList<DedupLog.Delivery>(msgs.size());
        for (MessageExt msg : msgs) {
            DedupLog.Delivery d = open(msg, mq);
            deliveries.add(d);
            if (d != null) {
                ACTIVE.put(msg, d);
                opened.add(msg);
            }
        }
        ConsumeConcurrentlyStatus status;
        try {
            status = listener.consumeMessage(msgs, context);
        } catch (Throwable t) {
            for (DedupLog.Delivery d : deliveries) effect(d, false, String.valueOf(t));
            throw t;
        } finally {
            for (MessageExt msg : opened) ACTIVE.remove(msg);
        }
        if (status == ConsumeConcurrentlyStatus.CONSUME_SUCCESS) {
            int ackIndex = context == null ? Integer.MAX_VALUE : context.getAckIndex();
            for (int i = 0; i < deliveries.size(); i++) {
                boolean acked = i <= ackIndex;
                String why = acked ? null : "not acknowledged: ackIndex " + ackIndex + ", message " + i + " of the batch";
                effect(deliveries.get(i), acked, why);
            }
        } else {
            String why = status == null ? "listener returned null" : "listener returned " + status.name();
            for (DedupLog.Delivery d : deliveries) effect(d, false, why);
        }
        return status;
    }

    private DedupLog.Delivery open(MessageExt msg, MessageQueue mq) {
        try {
            String key = bizKey == null ? msg.getKeys() : bizKey.of(msg);
            DedupLog.Delivery d;
            try {
                d = log.delivery(key);
            } catch (IllegalArgumentException noKey) {
                if (bizKey != null) throw noKey; // a custom bizKey is meant to be the key: no silent fallback
                d = log.delivery(msg.getMsgId());
            }
            d.msgId(msg.getMsgId()).topic(msg.getTopic()).retryTimes(msg.getReconsumeTimes()).queueOffset(msg.getQueueOffset());
            if (mq != null && mq.getBrokerName() != null) d.queue(mq.getBrokerName() + ":" + mq.getQueueId());
            return d;
        } catch (RuntimeException e) {
            log.report(e);
            return null;
        }
    }

    private void effect(DedupLog.Delivery d, boolean success, String error) {
        if (d == null || d.effectWritten() || d.lastDecision() == DedupLog.Decision.HIT) return;
        try {
            DedupLog.Layer layer = d.passLayer() != null ? d.passLayer() : defaultLayer;
            if (success) d.executed(layer, d.passDedupKey());
            else d.failed(layer, d.passDedupKey(), error);
        } catch (RuntimeException e) {
            log.report(e);
        }
    }
}
