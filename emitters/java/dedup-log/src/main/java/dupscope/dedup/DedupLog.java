package dupscope.dedup;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Writes dupscope's consumer dedup log, v1 (docs/dedup-log.md in the dupscope repository): one JSON object per line
 * for each decision a dedup layer took ({@code pass}, {@code hit}, {@code released}) and for the business side
 * effect ({@code executed}, {@code failed}).
 *
 * <p>One file, JDK only (Java 8 or later), no JSON library: copy it into your consumer and change the package if
 * you like. Usage:
 *
 * <pre>{@code
 * DedupLog dedupLog = DedupLog.builder("GID_points_award")     // a DedupLog.Builder
 *         .broker(DedupLog.Broker.ROCKETMQ)                     // required
 *         .instance(consumer::buildMQClientId)                  // resolved per line: valid after consumer.start()
 *         .toFile(Paths.get("/var/log/points-service/dedup.log"))
 *         .build();
 *
 * DedupLog.Delivery d = dedupLog.delivery(msg.getKeys())
 *         .msgId(msg.getMsgId()).topic(msg.getTopic()).retryTimes(msg.getReconsumeTimes())
 *         .queue(mq.getBrokerName() + ":" + mq.getQueueId()).queueOffset(msg.getQueueOffset());
 * d.pass(DedupLog.Layer.REDIS, "points:" + orderId, 86_400_000L);
 * awardPoints(orderId);
 * d.executed(DedupLog.Layer.REDIS, "points:" + orderId);
 * }</pre>
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Every line it writes is accepted by dupscope's {@code dedup-log} collector: values the format or the store
 *       would refuse (an empty business key, text over the length limits, a NUL character or an unpaired UTF-16
 *       surrogate in an identifying field, {@code hit}/{@code released} without a layer) are refused here with an
 *       {@link IllegalArgumentException}, when the call is made, not found later by the collector.</li>
 *   <li>One delivery's lines come in an order dupscope reads as that one delivery: a decision that may not follow
 *       the previous one (a {@code hit} ends the delivery, {@code executed} may be followed only by {@code failed},
 *       {@code failed} only by {@code released}; the table "One delivery, in order" of docs/dedup-log.md, which the
 *       Node.js emitter enforces too) is refused with an {@link IllegalStateException} and not written. Each line is
 *       stamped at least 1 ms after the previous line of the same delivery, so that a reader sorting by time keeps
 *       that order.</li>
 *   <li>Thread-safe: a line is built first and then written whole, with one write and a flush while holding the
 *       target's lock (the {@code Writer} or {@code OutputStream} object), so lines from several threads, or from
 *       several {@code DedupLog}s sharing one target, never interleave.</li>
 *   <li>An I/O failure never reaches the caller: it goes to {@link Builder#onError} (default: one line on
 *       {@code System.err}), so a full disk cannot turn a consumed message into a retried one.</li>
 * </ul>
 */
public final class DedupLog implements Closeable {

    /** The dedup layer that took a decision. */
    public enum Layer {
        BLOOM, REDIS, DB, STATE,
        /** No dedup layer: only {@code pass}, {@code executed} and {@code failed} make sense with it. */
        NONE;

        /** The spelling in the log: {@code "redis"}. */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What a layer decided, or what became of the business side effect. */
    public enum Decision {
        /** The layer had not seen the key, recorded it and let the message through. */
        PASS,
        /** The layer recognised the key and the message was skipped. */
        HIT,
        /** The business side effect committed. */
        EXECUTED,
        /** The business side effect failed. */
        FAILED,
        /** A marker was removed after a failure, so that the retry can pass. */
        RELEASED;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** {@code executed} and {@code failed} are about the side effect, the others about a dedup layer. */
        public boolean isEffect() {
            return this == EXECUTED || this == FAILED;
        }
    }

    /** Which broker delivered the message. The log cannot tell by itself, so {@link Builder#broker} is required. */
    public enum Broker {
        ROCKETMQ, RABBITMQ, KAFKA;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The collector keeps this many characters of {@code error}; longer texts are cut here the same way. */
    public static final int MAX_ERROR_CHARS = 2000;
    /** JavaScript's Number.MAX_SAFE_INTEGER: the largest whole number the collector reads exactly. */
    public static final long MAX_WHOLE_NUMBER = 9007199254740991L;
    /** How many deliveries' last timestamps are kept for ordering their lines; the least recent are forgotten. */
    private static final int MAX_TRACKED_DELIVERIES = 10_000;

    private final String group;
    private final Supplier<String> instance;
    private final Broker broker;
    private final LongSupplier clock;
    private final Sink sink;
    private final Consumer<? super Exception> onError;
    /** The last {@code ts} written per delivery (its fields as dupscope tells deliveries apart), in access order. */
    private final Map<List<Object>, Long> lastTs = new LinkedHashMap<List<Object>, Long>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<List<Object>, Long> eldest) {
            return size() > MAX_TRACKED_DELIVERIES;
        }
    };

    private DedupLog(Builder b) {
        this.group = b.group;
        this.instance = b.instance;
        this.broker = b.broker;
        this.clock = b.clock;
        this.sink = b.sink;
        this.onError = b.onError;
    }

    /** A log for one consumer group (RocketMQ, Kafka) or consuming service (RabbitMQ). */
    public static Builder builder(String group) {
        return new Builder(group);
    }

    /**
     * The decisions about one delivery of one message, keyed by its business key (order id, payment id): what
     * dupscope groups by. Set the message's context on it, then call one method per decision.
     */
    public Delivery delivery(String bizKey) {
        return new Delivery(checkText("bizKey", bizKey, 512, true));
    }

    /** Hands {@code e} to the {@link Builder#onError} handler; a handler that throws is ignored. */
    void report(Exception e) {
        try {
            onError.accept(e);
        } catch (RuntimeException ignored) {
            // the handler's own failure must not reach the consumer either
        }
    }

    /**
     * The clock's time, but at least 1 ms after the previous line of the same delivery (same bizKey, group, instance,
     * msgId, retry and queue position: how dupscope tells deliveries apart), as the Node.js emitter stamps it. A pass
     * and its executed often fall in one millisecond, and a reader that sorts by time (dupscope's store does, ties
     * broken by an id that is a hash of the line) would otherwise see them either way round. A line moves by a
     * millisecond or two at most.
     */
    private long stamp(List<Object> delivery) {
        long now = clock.getAsLong();
        synchronized (lastTs) {
            Long previous = lastTs.get(delivery);
            long ts = previous != null && now <= previous.longValue() ? previous.longValue() + 1 : now;
            lastTs.put(delivery, Long.valueOf(ts));
            return ts;
        }
    }

    /** Flushes; closes the target too when the log opened it ({@link Builder#toFile}). */
    @Override
    public void close() throws IOException {
        sink.close();
    }

    public static final class Builder {
        private final String group;
        private Supplier<String> instance;
        private Broker broker;
        private LongSupplier clock = System::currentTimeMillis;
        private Sink sink;
        private Consumer<? super Exception> onError = new Consumer<Exception>() {
            @Override
            public void accept(Exception e) {
                System.err.println("dupscope dedup log: " + e);
            }
        };

        private Builder(String group) {
            this.group = checkText("group", group, 255, true);
        }

        /** The consumer process as client logs and traces name it: the RocketMQ clientId, or {@code ip@pid}. */
        public Builder instance(String instance) {
            final String checked = checkText("instance", instance, 255, true);
            this.instance = new Supplier<String>() {
                @Override
                public String get() {
                    return checked;
                }
            };
            return this;
        }

        /**
         * The instance, asked for on every line: {@code consumer::buildMQClientId} is only right after
         * {@code consumer.start()} (RocketMQ 5 then replaces the instance name {@code DEFAULT} by {@code pid#nanotime}).
         */
        public Builder instance(Supplier<String> instance) {
            if (instance == null) throw new IllegalArgumentException("instance: must not be null");
            this.instance = instance;
            return this;
        }

        /** Required: the log cannot tell, and dupscope reads a line without a broker as RocketMQ. */
        public Builder broker(Broker broker) {
            if (broker == null) throw new IllegalArgumentException("broker: must not be null");
            this.broker = broker;
            return this;
        }

        /** Where {@code ts} comes from, in epoch milliseconds; default {@code System::currentTimeMillis}. */
        public Builder clock(LongSupplier epochMillis) {
            if (epochMillis == null) throw new IllegalArgumentException("clock: must not be null");
            this.clock = epochMillis;
            return this;
        }

        public Builder clock(final java.time.Clock clock) {
            if (clock == null) throw new IllegalArgumentException("clock: must not be null");
            return clock(new LongSupplier() {
                @Override
                public long getAsLong() {
                    return clock.millis();
                }
            });
        }

        /** Lines go to {@code writer}, flushed after each; {@link #close} flushes it but leaves it open. */
        public Builder to(Writer writer) {
            if (writer == null) throw new IllegalArgumentException("writer: must not be null");
            this.sink = new WriterSink(writer);
            return this;
        }

        /**
         * Lines go to {@code out} as UTF-8, whatever charset a {@code PrintStream} was made with
         * ({@code System.out} included); flushed after each; {@link #close} flushes it but leaves it open.
         */
        public Builder to(OutputStream out) {
            if (out == null) throw new IllegalArgumentException("out: must not be null");
            this.sink = new StreamSink(out, false);
            return this;
        }

        /**
         * Lines are appended to {@code file} (created if missing) as UTF-8, each with a single write, so a rotation
         * by copy-and-truncate loses no line halves. {@link #close} closes the file.
         */
        public Builder toFile(Path file) throws IOException {
            if (file == null) throw new IllegalArgumentException("file: must not be null");
            this.sink = new StreamSink(
                    Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND),
                    true);
            return this;
        }

        /**
         * Receives what must not reach the caller: write failures ({@code IOException}), and the messages
         * {@code DedupLogListener} could not log ({@code IllegalArgumentException}); default: one line on
         * {@code System.err}.
         */
        public Builder onError(Consumer<? super Exception> onError) {
            if (onError == null) throw new IllegalArgumentException("onError: must not be null");
            this.onError = onError;
            return this;
        }

        /** Throws {@link IllegalStateException} when the broker or the target is missing. */
        public DedupLog build() {
            if (broker == null) {
                throw new IllegalStateException("broker: is required (one of rocketmq, rabbitmq, kafka): the log cannot tell, and dupscope"
                        + " reads a line without it as rocketmq; call broker(DedupLog.Broker.ROCKETMQ), RABBITMQ or KAFKA");
            }
            if (sink == null) throw new IllegalStateException("no target: call to(Writer), to(OutputStream) or toFile(Path)");
            if (instance == null) instance(defaultInstance());
            return new DedupLog(this);
        }
    }

    /**
     * One delivery of one message. The setters return this; every method is thread-safe. It remembers what it
     * wrote ({@link #lastDecision}, {@link #effectWritten}, the layer and key of the last {@code pass}): what the
     * next decision may be, and how {@code DedupLogListener} knows whether your code already logged the outcome.
     */
    public final class Delivery {
        private final String bizKey;
        private String msgId;
        private String topic;
        private Integer retryTimes;
        private String queueId;
        private Long queueOffset;

        private Decision lastDecision;
        private boolean effectWritten;
        private Layer passLayer;
        private String passDedupKey;

        private Delivery(String bizKey) {
            this.bizKey = bizKey;
        }

        public String bizKey() {
            return bizKey;
        }

        /** The broker's message id: RocketMQ {@code MessageExt.getMsgId()}, RabbitMQ {@code message_id}; null for none. */
        public synchronized Delivery msgId(String msgId) {
            this.msgId = checkText("msgId", msgId, 128, false);
            return this;
        }

        /** The message's topic (for RocketMQ retries the original one, which the client restores). */
        public synchronized Delivery topic(String topic) {
            this.topic = checkText("topic", topic, 255, false);
            return this;
        }

        /** RocketMQ {@code getReconsumeTimes()}, RabbitMQ {@code x-delivery-count}. */
        public synchronized Delivery retryTimes(int retryTimes) {
            this.retryTimes = Integer.valueOf((int) checkWhole("retryTimes", retryTimes));
            return this;
        }

        /** RocketMQ {@code brokerName:queueId}, Kafka {@code topic-partition}, RabbitMQ the queue name; null for none. */
        public synchronized Delivery queue(String queueId) {
            this.queueId = checkText("queueId", queueId, 255, false);
            return this;
        }

        /** RocketMQ queue offset, Kafka record offset. */
        public synchronized Delivery queueOffset(long queueOffset) {
            this.queueOffset = Long.valueOf(checkWhole("queueOffset", queueOffset));
            return this;
        }

        /** The layer had not seen the key, recorded it and let the message through. */
        public void pass(Layer layer, String dedupKey) {
            write(layer, Decision.PASS, dedupKey, null, null);
        }

        /** As {@link #pass(Layer, String)}, with the marker's lifetime (Redis {@code EX}/{@code PX}) in ms. */
        public void pass(Layer layer, String dedupKey, long ttlMs) {
            write(layer, Decision.PASS, dedupKey, Long.valueOf(ttlMs), null);
        }

        /** The layer recognised the key and the message is skipped. */
        public void hit(Layer layer, String dedupKey) {
            write(layer, Decision.HIT, dedupKey, null, null);
        }

        /** The business side effect committed: call it after the commit. */
        public void executed(Layer layer, String dedupKey) {
            write(layer, Decision.EXECUTED, dedupKey, null, null);
        }

        /** The business side effect failed; {@code error} is written as {@code error.toString()}. */
        public void failed(Layer layer, String dedupKey, Throwable error) {
            write(layer, Decision.FAILED, dedupKey, null, error == null ? null : String.valueOf(error));
        }

        public void failed(Layer layer, String dedupKey, String error) {
            write(layer, Decision.FAILED, dedupKey, null, error);
        }

        /** A marker was removed after a failure: call it after the delete succeeded. */
        public void released(Layer layer, String dedupKey) {
            write(layer, Decision.RELEASED, dedupKey, null, null);
        }

        /**
         * Writes one line. {@code dedupKey}, {@code ttlMs} and {@code error} may be null (left out). {@code error}
         * is cut to {@value #MAX_ERROR_CHARS} characters as the collector would, with NUL and unpaired surrogates
         * replaced by U+FFFD (free text, unlike the identifying fields, which are refused). A decision that may not
         * follow the previous one of this delivery is refused with an {@link IllegalStateException}, unwritten.
         */
        public void write(Layer layer, Decision decision, String dedupKey, Long ttlMs, String error) {
            if (layer == null) throw new IllegalArgumentException("layer: is required");
            if (decision == null) throw new IllegalArgumentException("decision: is required");
            if (layer == Layer.NONE && (decision == Decision.HIT || decision == Decision.RELEASED)) {
                throw new IllegalArgumentException("layer: must name the layer that holds the marker when decision is hit or released");
            }
            String key = checkText("dedupKey", dedupKey, 512, false);
            if (ttlMs != null) checkWhole("ttlMs", ttlMs.longValue());
            String instanceNow = checkText("instance", instance.get(), 255, true);

            // Checked, stamped and written under this delivery's lock: its lines reach the target in the order
            // their decisions were accepted, whichever threads write them.
            synchronized (this) {
                String problem = orderProblem(lastDecision, decision);
                if (problem != null) throw new IllegalStateException(bizKey + ": " + problem);
                long ts = stamp(Arrays.<Object>asList(bizKey, group, instanceNow, msgId, retryTimes, queueId, queueOffset));

                StringBuilder line = new StringBuilder(256);
                line.append("{\"ts\":").append(ts);
                field(line, "bizKey", bizKey);
                field(line, "msgId", msgId);
                field(line, "group", group);
                field(line, "topic", topic);
                field(line, "instance", instanceNow);
                field(line, "broker", broker.wire());
                field(line, "layer", layer.wire());
                field(line, "decision", decision.wire());
                if (retryTimes != null) line.append(",\"retryTimes\":").append(retryTimes.intValue());
                field(line, "queueId", queueId);
                if (queueOffset != null) line.append(",\"queueOffset\":").append(queueOffset.longValue());
                field(line, "dedupKey", key);
                if (ttlMs != null) line.append(",\"ttlMs\":").append(ttlMs.longValue());
                field(line, "error", error == null ? null : errorText(error));
                line.append("}\n");

                lastDecision = decision;
                if (decision.isEffect()) effectWritten = true;
                if (decision == Decision.PASS) {
                    passLayer = layer;
                    passDedupKey = key;
                }
                try {
                    sink.write(line.toString());
                } catch (IOException e) {
                    report(e);
                }
            }
        }

        /** The decision of the last line written, or null. */
        public synchronized Decision lastDecision() {
            return lastDecision;
        }

        /** Whether an {@code executed} or {@code failed} line was written. */
        public synchronized boolean effectWritten() {
            return effectWritten;
        }

        /** The layer of the last {@code pass} written, or null. */
        public synchronized Layer passLayer() {
            return passLayer;
        }

        /** The {@code dedupKey} of the last {@code pass} written, or null. */
        public synchronized String passDedupKey() {
            return passDedupKey;
        }
    }

    // --- one delivery, in order -------------------------------------------------------------------------------

    /**
     * Why {@code next} may not follow {@code previous} (null: the delivery's first line) in one delivery, or null
     * when it may: the table "One delivery, in order" of docs/dedup-log.md, in the words the Node.js emitter uses.
     * It is how dupscope's diagnosis cuts a log into deliveries (a {@code hit}, {@code executed} or {@code failed}
     * ends one, except that a later step may fail after the commit and markers are released after a failure), so a
     * line it does not allow would read as a delivery nobody made.
     */
    static String orderProblem(Decision previous, Decision next) {
        String why;
        if (previous == null || previous == Decision.PASS) {
            if (next != Decision.RELEASED) return null;
            why = "a marker is released after the effect failed: write failed first";
        } else if (previous == Decision.HIT) {
            why = "a hit ends the delivery: the message was skipped, and a further line would read as another delivery";
        } else if (previous == Decision.EXECUTED) {
            if (next == Decision.FAILED) return null;
            why = "after executed only failed may follow (a later step failed after the commit)";
        } else if (previous == Decision.FAILED) {
            if (next == Decision.RELEASED) return null;
            why = "after failed only released may follow (the markers removed so that the retry can pass)";
        } else {
            if (next == Decision.RELEASED) return null;
            why = "after released only the release of another marker may follow";
        }
        String where = previous == null ? "as the first line of a delivery" : "after \"" + previous.wire() + "\"";
        return "\"" + next.wire() + "\" may not come " + where + ": " + why;
    }

    // --- JSON ---------------------------------------------------------------------------------------------------

    private static void field(StringBuilder line, String name, String value) {
        if (value == null) return;
        line.append(",\"").append(name).append("\":");
        appendJsonString(line, value);
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** {@code value} as a JSON string literal, quotes included (RFC 8259). */
    public static String jsonString(String value) {
        StringBuilder sb = new StringBuilder(value.length() + 2);
        appendJsonString(sb, value);
        return sb.toString();
    }

    /**
     * Appends {@code value} as a JSON string literal: {@code "} and {@code \} escaped, control characters as
     * {@code \n}, {@code \t}… or <code>&#92;u00XX</code>, U+2028 and U+2029 escaped (JavaScript source must not hold them raw),
     * unpaired surrogates as <code>&#92;uXXXX</code> (so no encoder turns them into {@code ?}); everything else, surrogate
     * pairs included, as it is (the target encodes it as UTF-8).
     */
    public static void appendJsonString(StringBuilder sb, String value) {
        sb.append('"');
        int n = value.length();
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case '\b': sb.append("\\b"); break;
                case '\f': sb.append("\\f"); break;
                default:
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        unicodeEscape(sb, c);
                    } else if (Character.isHighSurrogate(c)) {
                        if (i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
                            sb.append(c).append(value.charAt(++i));
                        } else {
                            unicodeEscape(sb, c);
                        }
                    } else if (Character.isLowSurrogate(c)) {
                        unicodeEscape(sb, c);
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    private static void unicodeEscape(StringBuilder sb, char c) {
        sb.append("\\u").append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF]).append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
    }

    // --- what the collector and the store accept ------------------------------------------------------------------

    /** JavaScript's String.prototype.trim() whitespace: the collector trims with it before checking lengths. */
    private static boolean isJsSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r') || c == '\u00a0' || c == '\u1680' || (c >= '\u2000' && c <= '\u200a')
                || c == '\u2028' || c == '\u2029' || c == '\u202f' || c == '\u205f' || c == '\u3000' || c == '\ufeff';
    }

    private static int unpairedSurrogateAt(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) i++;
                else return i;
            } else if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** Null passes unless required; otherwise non-empty and at most {@code max} characters once trimmed, storable. */
    static String checkText(String field, String value, int max, boolean required) {
        if (value == null) {
            if (required) throw new IllegalArgumentException(field + ": is required");
            return null;
        }
        int start = 0;
        int end = value.length();
        while (start < end && isJsSpace(value.charAt(start))) start++;
        while (end > start && isJsSpace(value.charAt(end - 1))) end--;
        if (start == end) throw new IllegalArgumentException(field + ": must not be empty");
        if (end - start > max) throw new IllegalArgumentException(field + ": must be at most " + max + " characters");
        if (value.indexOf('\u0000') >= 0) throw new IllegalArgumentException(field + ": must not hold a NUL character");
        if (unpairedSurrogateAt(value) >= 0) throw new IllegalArgumentException(field + ": must not hold an unpaired UTF-16 surrogate");
        return value;
    }

    private static long checkWhole(String field, long value) {
        if (value < 0) throw new IllegalArgumentException(field + ": must not be negative");
        if (value > MAX_WHOLE_NUMBER) throw new IllegalArgumentException(field + ": is too large");
        return value;
    }

    /**
     * Free text made storable and short: NUL and unpaired surrogates become U+FFFD, and past
     * {@value #MAX_ERROR_CHARS} characters the text is cut and ends in {@code …}, as the collector would cut it, but
     * never between the two halves of a surrogate pair.
     */
    static String errorText(String error) {
        StringBuilder sb = null;
        int n = error.length();
        for (int i = 0; i < n; i++) {
            char c = error.charAt(i);
            boolean bad = c == '\u0000'
                    || (Character.isHighSurrogate(c) && !(i + 1 < n && Character.isLowSurrogate(error.charAt(i + 1))))
                    || (Character.isLowSurrogate(c) && !(i > 0 && Character.isHighSurrogate(error.charAt(i - 1))));
            if (bad && sb == null) sb = new StringBuilder(error.substring(0, i));
            if (sb != null) sb.append(bad ? '\ufffd' : c);
        }
        String text = sb == null ? error : sb.toString();
        if (text.length() <= MAX_ERROR_CHARS) return text;
        int cut = Character.isHighSurrogate(text.charAt(MAX_ERROR_CHARS - 1)) ? MAX_ERROR_CHARS - 1 : MAX_ERROR_CHARS;
        return text.substring(0, cut) + "\u2026";
    }

    // --- instance -------------------------------------------------------------------------------------------------

    /**
     * {@code ip@pid}, the instance when none is given: the address picked as the RocketMQ client picks its clientIP
     * (IPv4, not loopback, a public one before a private one), and the JVM's process id.
     */
    public static String defaultInstance() {
        String name = ManagementFactory.getRuntimeMXBean().getName(); // "pid@hostname" on HotSpot and OpenJ9
        int at = name.indexOf('@');
        String pid = at > 0 ? name.substring(0, at) : name;
        return localAddress() + "@" + pid;
    }

    private static String localAddress() {
        try {
            List<InetAddress> v4 = new ArrayList<InetAddress>();
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress address : Collections.list(nif.getInetAddresses())) {
                    if (address instanceof Inet4Address && !address.isLoopbackAddress()) v4.add(address);
                }
            }
            for (InetAddress address : v4) {
                if (!address.isSiteLocalAddress()) return address.getHostAddress();
            }
            if (!v4.isEmpty()) return v4.get(v4.size() - 1).getHostAddress();
            return InetAddress.getLocalHost().getHostAddress();
        } catch (IOException | RuntimeException e) {
            return "127.0.0.1";
        }
    }

    // --- targets --------------------------------------------------------------------------------------------------

    private interface Sink {
        void write(String line) throws IOException;

        void close() throws IOException;
    }

    private static final class WriterSink implements Sink {
        private final Writer writer;

        WriterSink(Writer writer) {
            this.writer = writer;
        }

        @Override
        public void write(String line) throws IOException {
            synchronized (writer) {
                writer.write(line);
                writer.flush();
            }
        }

        @Override
        public void close() throws IOException {
            synchronized (writer) {
                writer.flush();
            }
        }
    }

    private static final class StreamSink implements Sink {
        private final OutputStream out;
        private final boolean owned;

        StreamSink(OutputStream out, boolean owned) {
            this.out = out;
            this.owned = owned;
        }

        @Override
        public void write(String line) throws IOException {
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            synchronized (out) {
                out.write(bytes);
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            synchronized (out) {
                if (owned) out.close();
                else out.flush();
            }
        }
    }
}
