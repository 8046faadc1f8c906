package dupscope.dedup;

import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Writes, to stdout, the dedup log of a made-up afternoon of three RocketMQ consumer groups and one Kafka consumer,
 * through DedupLog and DedupLogListener as an application would use them, with a clock this program sets (so the
 * output is the same on every run). Its output is collectors/dedup-log/testdata/java-emitter.dedup.log; the story
 * is told in collectors/dedup-log/testdata/README.md. Exits 2 if the log reported any problem.
 */
public final class DedupLogSample {
    /** 2026-11-30T13:00:01.204+08:00. */
    private static final long T0 = 1796014801204L;
    private static final AtomicLong NOW = new AtomicLong(T0);
    private static final List<Exception> PROBLEMS = new ArrayList<Exception>();

    private static void at(long ms) {
        NOW.set(T0 + ms);
    }

    private static void later(long ms) {
        NOW.addAndGet(ms);
    }

    private static DedupLog log(String group, String instance, DedupLog.Broker broker) {
        return DedupLog.builder(group).instance(instance).broker(broker).clock(NOW::get).to(System.out).onError(PROBLEMS::add).build();
    }

    private static MessageExt message(String topic, String keys, String msgId, int reconsumeTimes, long queueOffset) {
        MessageExt msg = new MessageExt();
        msg.setTopic(topic);
        msg.setKeys(keys);
        msg.setMsgId(msgId);
        msg.setReconsumeTimes(reconsumeTimes);
        msg.setQueueOffset(queueOffset);
        return msg;
    }

    private static ConsumeConcurrentlyStatus consume(MessageListenerConcurrently listener, MessageQueue mq, MessageExt... msgs) {
        try {
            return listener.consumeMessage(Arrays.asList(msgs), new ConsumeConcurrentlyContext(mq));
        } catch (RuntimeException e) {
            return ConsumeConcurrentlyStatus.RECONSUME_LATER; // what the RocketMQ client makes of a listener's exception
        }
    }

    /** Points: an optional Bloom filter in front of a Redis {@code SET NX PX} marker, as docs/dedup-log.md shows. */
    static final class Points implements MessageListenerConcurrently {
        final Map<String, Long> redis; // key -> expiry, shared by the pods
        final boolean bloom;
        final Set<String> bloomFilter = new HashSet<String>();
        long ttlMs = 86_400_000L;
        boolean releaseOnFailure = true;
        RuntimeException ledgerFailure; // the next award fails with it

        Points(Map<String, Long> redis, boolean bloom) {
            this.redis = redis;
            this.bloom = bloom;
        }

        @Override
        public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext context) {
            for (MessageExt msg : msgs) {
                DedupLog.Delivery d = DedupLogListener.delivery(msg);
                if (bloom && bloomFilter.add(msg.getKeys())) d.pass(DedupLog.Layer.BLOOM, "points-bloom:" + msg.getKeys());
                later(2);
                String key = "points:" + msg.getKeys();
                Long expiry = redis.get(key);
                if (expiry != null && expiry.longValue() > NOW.get()) {
                    d.hit(DedupLog.Layer.REDIS, key);
                    continue;
                }
                redis.put(key, Long.valueOf(NOW.get() + ttlMs));
                d.pass(DedupLog.Layer.REDIS, key, ttlMs);
                later(45);
                RuntimeException failure = ledgerFailure;
                ledgerFailure = null;
                if (failure != null) {
                    if (!releaseOnFailure) throw failure; // DedupLogListener writes the failed line
                    d.failed(DedupLog.Layer.REDIS, key, failure);
                    later(5);
                    redis.remove(key);
                    d.released(DedupLog.Layer.REDIS, key);
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }
    }

    /** Invoice: a dedup row under a unique key, in the transaction of the side effect. */
    static final class Invoice implements MessageListenerConcurrently {
        final Set<String> rows; // committed and in-flight rows, shared by the pods
        Runnable meanwhile; // runs while this transaction holds its row

        Invoice(Set<String> rows) {
            this.rows = rows;
        }

        @Override
        public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext context) {
            for (MessageExt msg : msgs) {
                DedupLog.Delivery d = DedupLogListener.delivery(msg);
                String key = "invoice_dedup:" + msg.getKeys();
                later(3);
                if (!rows.add(key)) {
                    d.hit(DedupLog.Layer.DB, key); // DuplicateKeyException
                    continue;
                }
                d.pass(DedupLog.Layer.DB, key);
                Runnable other = meanwhile;
                meanwhile = null;
                if (other != null) other.run();
                later(85);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }
    }

    /** Coupons: a conditional update PENDING -> GRANTED, in batches of two; a failed grant ends the batch. */
    static final class Coupons implements MessageListenerConcurrently {
        final Map<String, String> status; // order -> coupon status, shared by the pods
        final Set<String> unavailable = new HashSet<String>();

        Coupons(Map<String, String> status) {
            this.status = status;
        }

        @Override
        public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext context) {
            for (int i = 0; i < msgs.size(); i++) {
                MessageExt msg = msgs.get(i);
                String order = msg.getKeys() == null ? msg.getMsgId() : msg.getKeys();
                DedupLog.Delivery d = DedupLogListener.delivery(msg);
                later(4);
                if (unavailable.remove(order)) { // the coupon service timed out before the update
                    context.setAckIndex(i - 1);
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                }
                String transition = "coupon:" + order + ":PENDING->GRANTED";
                if ("GRANTED".equals(status.get(order))) {
                    d.hit(DedupLog.Layer.STATE, transition); // 0 rows updated
                    continue;
                }
                status.put(order, "GRANTED");
                d.pass(DedupLog.Layer.STATE, transition);
                later(12);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }
    }

    public static void main(String[] args) {
        DedupLog pointsA = log("GID_points_award", "10.8.3.17@23817#2310457739811", DedupLog.Broker.ROCKETMQ);
        DedupLog pointsB = log("GID_points_award", "10.8.3.18@4102#2310461190342", DedupLog.Broker.ROCKETMQ);
        DedupLog invoiceA = log("GID_invoice_issue", "10.8.4.21@9051#771203551890", DedupLog.Broker.ROCKETMQ);
        DedupLog invoiceB = log("GID_invoice_issue", "10.8.4.22@9113#771209874411", DedupLog.Broker.ROCKETMQ);
        DedupLog couponsA = log("GID_coupon_grant", "10.8.6.3@1207", DedupLog.Broker.ROCKETMQ);
        DedupLog kafka = log("points-award", "10.8.5.9@311", DedupLog.Broker.KAFKA);

        Map<String, Long> redis = new HashMap<String, Long>();
        Points pointsOnA = new Points(redis, true);
        Points pointsOnB = new Points(redis, false);
        MessageListenerConcurrently listenerA = new DedupLogListener(pointsA, pointsOnA);
        MessageListenerConcurrently listenerB = new DedupLogListener(pointsB, pointsOnB);
        MessageQueue orderPaidA3 = new MessageQueue("ORDER_PAID", "broker-a", 3);
        MessageQueue orderPaidB1 = new MessageQueue("ORDER_PAID", "broker-b", 1);
        MessageQueue pointsRetry = new MessageQueue("%RETRY%GID_points_award", "broker-a", 0);

        // Caught: processed on A, redelivered to B after a rebalance 20 s later, a Redis hit.
        at(0);
        consume(listenerA, orderPaidA3, message("ORDER_PAID", "ORD-20261130-110231", "0A0803114A1918B4AAC27E61A2F00000", 0, 902114));
        at(20_031);
        consume(listenerB, orderPaidA3, message("ORDER_PAID", "ORD-20261130-110231", "0A0803114A1918B4AAC27E61A2F00000", 0, 902114));

        // Escaping: a bizKey with quotes, a backslash and CJK; the ledger's error spans lines and holds JSON.
        String member = "会员\"王小明\"\\ORD-20261130-110377";
        at(60_004);
        pointsOnA.ledgerFailure = new IllegalStateException("ledger rejected award for " + member + ":\n\t{\"code\":\"LOCK_WAIT\",\"path\":\"C:\\ledger\\points\"}"
                + "\r\n\tcaused by: Lock wait timeout exceeded; try restarting transaction \u2028 ✓ \uD83C\uDFAF \u0001");
        consume(listenerA, orderPaidB1, message("ORDER_PAID", member, "0A0803114A1918B4AAC27E61C3B80000", 0, 415507));
        at(70_611);
        consume(listenerA, pointsRetry, message("ORDER_PAID", member, "0A0803114A1918B4AAC27E61C3B80000", 1, 1207));

        // Marker not released: the failure leaves the Redis marker, the retry on B is skipped.
        at(120_009);
        pointsOnA.releaseOnFailure = false;
        pointsOnA.ledgerFailure = new RuntimeException(new SocketTimeoutException("Read timed out"));
        consume(listenerA, orderPaidA3, message("ORDER_PAID", "ORD-20261130-110412", "0A0803114A1918B4AAC27E61F0D40000", 0, 902188));
        pointsOnA.releaseOnFailure = true;
        at(130_702);
        consume(listenerB, pointsRetry, message("ORDER_PAID", "ORD-20261130-110412", "0A0803114A1918B4AAC27E61F0D40000", 1, 1208));

        // Leak: a 30 s marker, a redelivery 47 s later on B, executed twice.
        at(180_015);
        pointsOnA.ttlMs = 30_000L;
        consume(listenerA, orderPaidB1, message("ORDER_PAID", "ORD-20261130-110298", "0A0803114A1918B4AAC27E622B1C0000", 0, 415561));
        pointsOnB.ttlMs = 30_000L;
        at(227_040);
        consume(listenerB, orderPaidB1, message("ORDER_PAID", "ORD-20261130-110298", "0A0803114A1918B4AAC27E622B1C0000", 0, 415561));

        // Concurrent double consume, caught by the dedup row: B tries while A's transaction holds it.
        Set<String> rows = new HashSet<String>();
        Invoice invoiceOnA = new Invoice(rows);
        final MessageListenerConcurrently invoiceListenerB = new DedupLogListener(invoiceB, new Invoice(rows));
        final MessageQueue invoiceQueue = new MessageQueue("ORDER_PAID", "broker-a", 5);
        at(300_002);
        invoiceOnA.meanwhile = () -> {
            later(17);
            consume(invoiceListenerB, invoiceQueue, message("ORDER_PAID", "ORD-20261130-110450", "0A0803154B2218B4AAC27E6266400000", 0, 77410));
        };
        consume(new DedupLogListener(invoiceA, invoiceOnA), invoiceQueue,
                message("ORDER_PAID", "ORD-20261130-110450", "0A0803154B2218B4AAC27E6266400000", 0, 77410));

        // State machine: a late copy a minute later; a batch whose second grant fails (ackIndex); a message without KEYS.
        Map<String, String> coupons = new HashMap<String, String>();
        Coupons couponsOnA = new Coupons(coupons);
        MessageListenerConcurrently couponListener = new DedupLogListener(couponsA, couponsOnA, DedupLog.Layer.STATE, null);
        MessageQueue couponQueue = new MessageQueue("ORDER_PAID", "broker-b", 2);
        at(360_000);
        couponsOnA.unavailable.add("ORD-20261130-110533");
        consume(couponListener, couponQueue,
                message("ORDER_PAID", "ORD-20261130-110502", "0A0803064C1F18B4AAC27E62A0100000", 0, 30051),
                message("ORDER_PAID", "ORD-20261130-110533", "0A0803064C1F18B4AAC27E62A0180000", 0, 30052));
        at(421_300);
        consume(couponListener, couponQueue, message("ORDER_PAID", "ORD-20261130-110502", "0A0803064C1F18B4AAC27E62A0100000", 0, 30051));
        at(421_350);
        consume(couponListener, couponQueue, message("ORDER_PAID", null, "0A0803064C1F18B4AAC27E62B7440000", 0, 30060));

        // Kafka, through DedupLog alone: no msgId, no retry count; the first attempt fails and releases its marker.
        at(480_000);
        DedupLog.Delivery first = kafka.delivery("ORD-20261130-110600").topic("order-paid").queue("order-paid-3").queueOffset(1884213L);
        first.pass(DedupLog.Layer.REDIS, "points:ORD-20261130-110600", 86_400_000L);
        later(530);
        first.failed(DedupLog.Layer.REDIS, "points:ORD-20261130-110600",
                "org.springframework.dao.CannotAcquireLockException: PreparedStatementCallback; SQL [UPDATE points SET balance = balance + ? WHERE member = ?];"
                        + " Lock wait timeout exceeded\n\tat D:\\apps\\points\\lib\\ledger.jar!/Ledger.class");
        later(5);
        first.released(DedupLog.Layer.REDIS, "points:ORD-20261130-110600");
        at(490_612);
        DedupLog.Delivery retry = kafka.delivery("ORD-20261130-110600").topic("order-paid").queue("order-paid-3").queueOffset(1884213L);
        retry.pass(DedupLog.Layer.REDIS, "points:ORD-20261130-110600", 86_400_000L);
        later(41);
        retry.executed(DedupLog.Layer.REDIS, "points:ORD-20261130-110600");

        System.out.flush();
        if (!PROBLEMS.isEmpty()) {
            System.err.println("DedupLogSample: the log reported " + PROBLEMS);
            System.exit(2);
        }
    }

    private DedupLogSample() {
    }
}
