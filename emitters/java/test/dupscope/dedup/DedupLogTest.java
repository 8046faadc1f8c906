package dupscope.dedup;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The unit test of DedupLog and DedupLogListener, without JUnit: {@code java -cp … dupscope.dedup.DedupLogTest}
 * prints one line per failed check and exits 1 if there was any. Run by tests/unit/collectors/dedup-log-java-emitter.test.ts.
 */
public final class DedupLogTest {
    private static final long TS = 1796011201206L;
    private static final String A = "10.8.3.17@23817#2310457739811";
    private static int checks;
    private static final List<String> failures = new ArrayList<String>();

    public static void main(String[] args) throws Exception {
        escaping();
        lines();
        validation();
        order();
        sameMillisecond();
        errorText();
        targets();
        failuresStayInside();
        concurrency();
        listener();
        for (String f : failures) System.out.println("FAIL " + f);
        System.out.println("DedupLogTest: " + (checks - failures.size()) + "/" + checks + " checks passed");
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    // --- helpers --------------------------------------------------------------------------------------------------

    private static void check(boolean ok, String what) {
        checks++;
        if (!ok) failures.add(what);
    }

    private static void eq(Object expected, Object actual, String what) {
        checks++;
        if (expected == null ? actual != null : !expected.equals(actual)) {
            failures.add(what + "\n  expected: " + expected + "\n  actual:   " + actual);
        }
    }

    private static void refused(String what, String messagePart, Runnable action) {
        checks++;
        try {
            action.run();
            failures.add(what + ": no IllegalArgumentException");
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().contains(messagePart)) failures.add(what + ": message \"" + e.getMessage() + "\" lacks \"" + messagePart + "\"");
        } catch (RuntimeException e) {
            failures.add(what + ": " + e);
        }
    }

    /** A builder with the broker set, as every log needs one. */
    private static DedupLog.Builder rocketmq(String group) {
        return DedupLog.builder(group).broker(DedupLog.Broker.ROCKETMQ);
    }

    private static DedupLog log(Writer out) {
        return rocketmq("GID_points_award").instance(A).clock(() -> TS).to(out).build();
    }

    private static String repeat(char c, int n) {
        char[] chars = new char[n];
        Arrays.fill(chars, c);
        return new String(chars);
    }

    private static MessageExt msg(String keys, String msgId, int retry, long offset) {
        MessageExt m = new MessageExt();
        m.setTopic("ORDER_PAID");
        m.setKeys(keys);
        m.setMsgId(msgId);
        m.setReconsumeTimes(retry);
        m.setQueueOffset(offset);
        return m;
    }

    private static ConsumeConcurrentlyContext context() {
        return new ConsumeConcurrentlyContext(new MessageQueue("ORDER_PAID", "broker-a", 3));
    }

    // --- the checks -----------------------------------------------------------------------------------------------

    private static void escaping() {
        eq("\"\"", DedupLog.jsonString(""), "empty string");
        eq("\"a\\\"b\\\\c/d\"", DedupLog.jsonString("a\"b\\c/d"), "quote and backslash escaped, slash not");
        eq("\"\\b\\f\\n\\r\\t\"", DedupLog.jsonString("\b\f\n\r\t"), "short escapes");
        eq("\"\\u0000\\u0001\\u001f\u007f \"", DedupLog.jsonString("\u0000\u0001\u001f\u007f "), "other control characters as \\u00XX, DEL raw");
        eq("\"\\u2028\\u2029\"", DedupLog.jsonString("\u2028\u2029"), "line and paragraph separators escaped");
        eq("\"é中\uD83C\uDFAF\"", DedupLog.jsonString("é中\uD83C\uDFAF"), "non-ASCII and surrogate pairs raw");
        eq("\"\\ud83cx\"", DedupLog.jsonString("\uD83Cx"), "unpaired high surrogate escaped");
        eq("\"x\\udfaf\"", DedupLog.jsonString("x\uDFAF"), "unpaired low surrogate escaped");
        eq("\"\\ud83c\"", DedupLog.jsonString("\uD83C"), "high surrogate at the end escaped");
        eq("\"\\udfaf\\ud83c\"", DedupLog.jsonString("\uDFAF\uD83C"), "reversed pair escaped");
    }

    private static void lines() throws IOException {
        StringWriter out = new StringWriter();
        DedupLog log = log(out);
        log.delivery("ORD-20261130-100231").msgId("0A0803114A1918B4AAC27E5E2F3C0000").topic("ORDER_PAID").retryTimes(0)
                .queue("broker-a:3").queueOffset(884213L)
                .pass(DedupLog.Layer.REDIS, "points:ORD-20261130-100231", 86400000L);
        eq("{\"ts\":1796011201206,\"bizKey\":\"ORD-20261130-100231\",\"msgId\":\"0A0803114A1918B4AAC27E5E2F3C0000\","
                + "\"group\":\"GID_points_award\",\"topic\":\"ORDER_PAID\",\"instance\":\"10.8.3.17@23817#2310457739811\","
                + "\"broker\":\"rocketmq\",\"layer\":\"redis\",\"decision\":\"pass\",\"retryTimes\":0,\"queueId\":\"broker-a:3\","
                + "\"queueOffset\":884213,\"dedupKey\":\"points:ORD-20261130-100231\",\"ttlMs\":86400000}\n",
                out.toString(), "the full line of docs/dedup-log.md, with ts in epoch ms");

        out.getBuffer().setLength(0);
        log.delivery("ORD-1").executed(DedupLog.Layer.NONE, null);
        eq("{\"ts\":1796011201206,\"bizKey\":\"ORD-1\",\"group\":\"GID_points_award\",\"instance\":\"" + A + "\","
                + "\"broker\":\"rocketmq\",\"layer\":\"none\",\"decision\":\"executed\"}\n", out.toString(), "a minimal line leaves out what is unset");

        out.getBuffer().setLength(0);
        log.delivery("ORD-2").hit(DedupLog.Layer.BLOOM, "bloom");
        DedupLog.Delivery d = log.delivery("ORD-2").msgId("M2");
        d.failed(DedupLog.Layer.STATE, null, new IllegalStateException("x \"y\"\n"));
        d.released(DedupLog.Layer.DB, null);
        log.delivery("ORD-2").msgId("M3").failed(DedupLog.Layer.STATE, null, (Throwable) null);
        String[] lines = out.toString().split("\n", -1);
        eq(5, lines.length, "four lines and the empty tail");
        check(lines[0].contains("\"layer\":\"bloom\",\"decision\":\"hit\",\"dedupKey\":\"bloom\"}"), "bloom hit: " + lines[0]);
        check(lines[1].endsWith("\"layer\":\"state\",\"decision\":\"failed\",\"error\":\"java.lang.IllegalStateException: x \\\"y\\\"\\n\"}"),
                "failed carries error.toString(), escaped: " + lines[1]);
        check(lines[2].contains("\"layer\":\"db\",\"decision\":\"released\"}"), "db released: " + lines[2]);
        check(lines[3].endsWith("\"decision\":\"failed\"}"), "failed without an error leaves it out: " + lines[3]);
        eq(DedupLog.Decision.RELEASED, d.lastDecision(), "lastDecision");
        check(d.effectWritten(), "effectWritten after failed");
        eq(null, d.passLayer(), "no pass yet");

        out.getBuffer().setLength(0);
        AtomicInteger calls = new AtomicInteger();
        DedupLog kafka = DedupLog.builder("points-award").broker(DedupLog.Broker.KAFKA)
                .instance(() -> "10.8.3.17@" + calls.incrementAndGet())
                .clock(Clock.fixed(Instant.ofEpochMilli(1796011209999L), ZoneOffset.UTC)).to(out).build();
        DedupLog.Delivery k = kafka.delivery("ORD-3").queue("order-paid-3").queueOffset(7);
        k.pass(DedupLog.Layer.REDIS, "points:ORD-3");
        k.executed(DedupLog.Layer.REDIS, "points:ORD-3");
        lines = out.toString().split("\n");
        check(lines[0].startsWith("{\"ts\":1796011209999,") && lines[0].contains("\"broker\":\"kafka\"") && lines[0].contains("\"instance\":\"10.8.3.17@1\""),
                "java.time.Clock, broker and an instance supplier: " + lines[0]);
        check(lines[1].contains("\"instance\":\"10.8.3.17@2\""), "the instance supplier is asked on every line: " + lines[1]);
        eq(DedupLog.Layer.REDIS, k.passLayer(), "passLayer");
        eq("points:ORD-3", k.passDedupKey(), "passDedupKey");

        String instance = DedupLog.defaultInstance();
        check(instance.matches("[0-9.]+@\\d+"), "defaultInstance is ip@pid: " + instance);
    }

    private static void validation() {
        final DedupLog log = log(new StringWriter());
        refused("null bizKey", "bizKey: is required", () -> log.delivery(null));
        refused("blank bizKey", "bizKey: must not be empty", () -> log.delivery(" \t\n"));
        refused("bizKey of JavaScript whitespace only", "bizKey: must not be empty", () -> log.delivery("\u3000\u00a0\ufeff"));
        refused("bizKey over 512", "bizKey: must be at most 512", () -> log.delivery(repeat('k', 513)));
        log.delivery("  " + repeat('k', 512) + "  "); // the collector trims before it counts
        refused("NUL in bizKey", "NUL", () -> log.delivery("ORD\u00001"));
        refused("unpaired surrogate in bizKey", "surrogate", () -> log.delivery("ORD-\uD83C"));
        refused("msgId over 128", "msgId", () -> log.delivery("k").msgId(repeat('m', 129)));
        refused("empty topic", "topic: must not be empty", () -> log.delivery("k").topic(""));
        refused("negative retryTimes", "retryTimes: must not be negative", () -> log.delivery("k").retryTimes(-1));
        refused("queueOffset beyond 2^53", "queueOffset: is too large", () -> log.delivery("k").queueOffset(DedupLog.MAX_WHOLE_NUMBER + 1));
        refused("negative ttlMs", "ttlMs", () -> log.delivery("k").pass(DedupLog.Layer.REDIS, "x", -1));
        refused("dedupKey over 512", "dedupKey", () -> log.delivery("k").pass(DedupLog.Layer.REDIS, repeat('d', 513)));
        refused("hit without a layer", "layer: must name the layer", () -> log.delivery("k").hit(DedupLog.Layer.NONE, null));
        refused("released without a layer", "layer: must name the layer", () -> log.delivery("k").released(DedupLog.Layer.NONE, null));
        refused("no layer", "layer: is required", () -> log.delivery("k").write(null, DedupLog.Decision.PASS, null, null, null));
        refused("blank group", "group", () -> DedupLog.builder(" "));
        refused("instance over 255", "instance", () -> DedupLog.builder("g").instance(repeat('i', 256)));
        refused("an instance supplier giving null", "instance: is required",
                () -> rocketmq("g").instance(() -> null).to(new StringWriter()).build().delivery("k").executed(DedupLog.Layer.NONE, null));
        notBuilt("build without a broker", "broker: is required (one of rocketmq, rabbitmq, kafka)", DedupLog.builder("g").to(new StringWriter()));
        notBuilt("build without a target", "no target", rocketmq("g"));
    }

    private static void notBuilt(String what, String messagePart, DedupLog.Builder builder) {
        checks++;
        try {
            builder.build();
            failures.add(what + ": built");
        } catch (IllegalStateException e) {
            if (!e.getMessage().contains(messagePart)) failures.add(what + ": message \"" + e.getMessage() + "\" lacks \"" + messagePart + "\"");
        }
    }

    /** Refused with an IllegalStateException whose message is {@code message}, and nothing written. */
    private static void outOfOrder(String what, String message, StringWriter out, Runnable action) {
        checks++;
        int before = out.getBuffer().length();
        try {
            action.run();
            failures.add(what + ": no IllegalStateException");
        } catch (IllegalStateException e) {
            if (!e.getMessage().equals(message)) failures.add(what + ": message \"" + e.getMessage() + "\", expected \"" + message + "\"");
        }
        if (out.getBuffer().length() != before) failures.add(what + ": a line was written");
    }

    private static void order() {
        final StringWriter out = new StringWriter();
        final DedupLog log = log(out);

        // The issue's consumer that forgets to return after a hit: its executed would read as a delivery nobody made.
        final DedupLog.Delivery skipped = log.delivery("ORD-1");
        skipped.hit(DedupLog.Layer.REDIS, "points:ORD-1");
        outOfOrder("executed after hit", "ORD-1: \"executed\" may not come after \"hit\": a hit ends the delivery: the message was skipped,"
                + " and a further line would read as another delivery", out, () -> skipped.executed(DedupLog.Layer.REDIS, "points:ORD-1"));
        outOfOrder("pass after hit", "ORD-1: \"pass\" may not come after \"hit\": a hit ends the delivery: the message was skipped,"
                + " and a further line would read as another delivery", out, () -> skipped.pass(DedupLog.Layer.DB, "k"));

        final DedupLog.Delivery twice = log.delivery("ORD-2");
        twice.pass(DedupLog.Layer.REDIS, "points:ORD-2", 1000L);
        twice.executed(DedupLog.Layer.REDIS, "points:ORD-2");
        outOfOrder("executed twice", "ORD-2: \"executed\" may not come after \"executed\": after executed only failed may follow"
                + " (a later step failed after the commit)", out, () -> twice.executed(DedupLog.Layer.REDIS, "points:ORD-2"));
        twice.failed(DedupLog.Layer.REDIS, "points:ORD-2", "notify failed after the commit");
        twice.released(DedupLog.Layer.REDIS, "points:ORD-2");
        twice.released(DedupLog.Layer.DB, "points_dedup:ORD-2");
        eq(DedupLog.Decision.RELEASED, twice.lastDecision(), "executed, failed, released, released: one delivery");

        final DedupLog.Delivery early = log.delivery("ORD-3");
        early.pass(DedupLog.Layer.REDIS, "points:ORD-3", 1000L);
        outOfOrder("released before failed", "ORD-3: \"released\" may not come after \"pass\": a marker is released after the effect"
                + " failed: write failed first", out, () -> early.released(DedupLog.Layer.REDIS, "points:ORD-3"));
        outOfOrder("released as the first line", "ORD-4: \"released\" may not come as the first line of a delivery: a marker is released"
                + " after the effect failed: write failed first", out, () -> log.delivery("ORD-4").released(DedupLog.Layer.REDIS, "k"));

        // Through the RocketMQ wrapper: the refusal reaches the listener, which RocketMQ then retries; no effect line.
        out.getBuffer().setLength(0);
        final MessageExt m = msg("ORD-5", "MSG5", 0, 1L);
        checks++;
        try {
            new DedupLogListener(log, (msgs, ctx) -> {
                DedupLog.Delivery d = DedupLogListener.delivery(msgs.get(0));
                d.hit(DedupLog.Layer.REDIS, "points:ORD-5");
                d.pass(DedupLog.Layer.DB, "points_dedup:ORD-5"); // the forgotten continue
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            }).consumeMessage(Arrays.asList(m), context());
            failures.add("the wrapper swallowed the refusal");
        } catch (IllegalStateException expected) {
            // rethrown unchanged
        }
        String[] lines = out.toString().split("\n");
        check(lines.length == 1 && lines[0].contains("\"decision\":\"hit\""), "only the hit is written: " + out);
    }

    private static void sameMillisecond() {
        StringWriter out = new StringWriter();
        DedupLog log = log(out); // a clock that stands still
        DedupLog.Delivery first = log.delivery("ORD-1").msgId("M1");
        first.pass(DedupLog.Layer.REDIS, "points:ORD-1", 1000L);
        first.failed(DedupLog.Layer.REDIS, "points:ORD-1", "x");
        first.released(DedupLog.Layer.REDIS, "points:ORD-1");
        log.delivery("ORD-2").msgId("M1").executed(DedupLog.Layer.NONE, null);
        DedupLog.Delivery again = log.delivery("ORD-1").msgId("M1"); // the same delivery as far as dupscope can tell
        again.pass(DedupLog.Layer.REDIS, "points:ORD-1", 1000L);
        again.executed(DedupLog.Layer.REDIS, "points:ORD-1");
        List<String> stamps = new ArrayList<String>();
        for (String line : out.toString().split("\n")) {
            int bizKey = line.indexOf("\"bizKey\":\"") + 10;
            stamps.add(line.substring(bizKey, line.indexOf('"', bizKey)) + " " + (Long.parseLong(line.substring(6, line.indexOf(','))) - TS));
        }
        eq(Arrays.asList("ORD-1 0", "ORD-1 1", "ORD-1 2", "ORD-2 0", "ORD-1 3", "ORD-1 4"), stamps,
                "each line of a delivery 1 ms after the previous one; other deliveries keep the clock's time");
    }

    private static void errorText() {
        eq("a\ufffdb\ufffdc\ufffd\uD83C\uDFAF", DedupLog.errorText("a\u0000b\uD83Cc\uDFAF\uD83C\uDFAF"), "NUL and unpaired surrogates become U+FFFD in error");
        eq(repeat('x', 2000), DedupLog.errorText(repeat('x', 2000)), "2000 characters are kept");
        eq(repeat('x', 2000) + "\u2026", DedupLog.errorText(repeat('x', 2001)), "longer is cut as the collector cuts");
        String straddling = repeat('x', 1999) + "\uD83C\uDFAF" + repeat('y', 10);
        eq(repeat('x', 1999) + "\u2026", DedupLog.errorText(straddling), "never cut inside a surrogate pair");
        String pairBefore = repeat('x', 1998) + "\uD83C\uDFAF" + repeat('y', 10);
        eq(pairBefore.substring(0, 2000) + "\u2026", DedupLog.errorText(pairBefore), "a pair ending at 2000 is kept whole");
    }

    private static void targets() throws IOException {
        Path dir = Files.createTempDirectory("dedup-log-test");
        Path file = dir.resolve("dedup.log");
        Files.write(file, "previous line\n".getBytes(StandardCharsets.UTF_8));
        DedupLog log = rocketmq("g").instance("i").clock(() -> TS).toFile(file).build();
        log.delivery("订单-1 \uD83C\uDFAF").executed(DedupLog.Layer.NONE, null);
        log.close();
        byte[] bytes = Files.readAllBytes(file);
        String text = new String(bytes, StandardCharsets.UTF_8);
        check(text.startsWith("previous line\n{\"ts\":1796011201206,\"bizKey\":\"订单-1 \uD83C\uDFAF\""), "toFile appends UTF-8: " + text);
        check(text.endsWith("}\n"), "toFile ends lines with \\n");
        AtomicReference<Exception> error = new AtomicReference<Exception>();
        DedupLog closed = rocketmq("g").instance("i").toFile(file).onError(error::set).build();
        closed.close();
        closed.delivery("k").executed(DedupLog.Layer.NONE, null);
        check(error.get() instanceof IOException, "writing after close reports an IOException: " + error.get());
        Files.delete(file);
        Files.delete(dir);

        ByteArrayOutputStream latin = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(latin, false, "ISO-8859-1");
        rocketmq("g").instance("i").clock(() -> TS).to(ps).build().delivery("中").executed(DedupLog.Layer.NONE, null);
        check(new String(latin.toByteArray(), StandardCharsets.UTF_8).contains("\"bizKey\":\"中\""), "to(OutputStream) writes UTF-8 whatever the PrintStream's charset");
    }

    private static void failuresStayInside() {
        final List<Exception> seen = new ArrayList<Exception>();
        Writer broken = new Writer() {
            @Override
            public void write(char[] cbuf, int off, int len) throws IOException {
                throw new IOException("No space left on device");
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        DedupLog log = rocketmq("g").instance("i").to(broken).onError(seen::add).build();
        DedupLog.Delivery d = log.delivery("k");
        d.executed(DedupLog.Layer.NONE, null);
        eq(1, seen.size(), "a write failure goes to onError, not to the caller");
        check(d.effectWritten(), "the decision is remembered even when the write failed");
        DedupLog throwing = rocketmq("g").instance("i").to(broken).onError(e -> {
            throw new IllegalStateException("handler bug");
        }).build();
        throwing.delivery("k").executed(DedupLog.Layer.NONE, null); // must not throw
        check(true, "a throwing onError handler is contained");
    }

    private static void concurrency() throws Exception {
        final int threads = 8;
        final int perThread = 400;
        final StringWriter out = new StringWriter();
        final DedupLog a = log(out);
        final DedupLog b = rocketmq("GID_invoice_issue").instance("10.8.3.18@4102").clock(() -> TS).to(out).build();
        Path dir = Files.createTempDirectory("dedup-log-test");
        Path file = dir.resolve("dedup.log");
        final DedupLog f = rocketmq("g").instance("i").clock(() -> TS).toFile(file).build();
        final String noise = "\"quoted\"\n\\" + repeat('n', 3000) + "中\uD83C\uDFAF"; // longer than any buffer
        final CountDownLatch start = new CountDownLatch(1);
        List<Thread> all = new ArrayList<Thread>();
        for (int t = 0; t < threads; t++) {
            final int id = t;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    DedupLog target = (i & 1) == 0 ? a : b;
                    target.delivery("T" + id + "-" + i).failed(DedupLog.Layer.REDIS, "k", noise);
                    f.delivery("T" + id + "-" + i).failed(DedupLog.Layer.REDIS, "k", noise);
                }
            });
            thread.start();
            all.add(thread);
        }
        start.countDown();
        for (Thread thread : all) thread.join();
        f.close();
        String expectedError = "\"error\":" + DedupLog.jsonString(DedupLog.errorText(noise)) + "}";
        for (String text : new String[] {out.toString(), new String(Files.readAllBytes(file), StandardCharsets.UTF_8)}) {
            String[] lines = text.split("\n");
            eq(threads * perThread, lines.length, "one line per call, none split or merged");
            Set<String> keys = new HashSet<String>();
            boolean whole = true;
            for (String line : lines) {
                whole &= line.startsWith("{\"ts\":1796011201206,\"bizKey\":\"T") && line.endsWith(expectedError);
                keys.add(line.substring(30, line.indexOf('"', 30)));
            }
            check(whole, "every line is whole under 8 threads and two logs sharing a Writer");
            eq(threads * perThread, keys.size(), "every line written once");
        }
        Files.delete(file);
        Files.delete(dir);
    }

    private static void listener() {
        final StringWriter out = new StringWriter();
        final List<Exception> errors = new ArrayList<Exception>();
        final DedupLog log = rocketmq("GID_points_award").instance(A).clock(() -> TS).to(out).onError(errors::add).build();

        // success, no layer line from the listener: executed with the default layer
        MessageExt m1 = msg("ORD-1", "MSG1", 2, 884213L);
        ConsumeConcurrentlyStatus s = new DedupLogListener(log, (msgs, ctx) -> ConsumeConcurrentlyStatus.CONSUME_SUCCESS)
                .consumeMessage(Arrays.asList(m1), context());
        eq(ConsumeConcurrentlyStatus.CONSUME_SUCCESS, s, "the listener's status is returned");
        eq("{\"ts\":1796011201206,\"bizKey\":\"ORD-1\",\"msgId\":\"MSG1\",\"group\":\"GID_points_award\",\"topic\":\"ORDER_PAID\","
                + "\"instance\":\"" + A + "\",\"broker\":\"rocketmq\",\"layer\":\"none\",\"decision\":\"executed\",\"retryTimes\":2,"
                + "\"queueId\":\"broker-a:3\",\"queueOffset\":884213}\n", out.toString(), "executed from CONSUME_SUCCESS, with the message's context");
        eq(null, DedupLogListener.delivery(m1), "no delivery once the call returned");

        // pass inside the listener: the effect line takes its layer and key; a hit: no effect line
        out.getBuffer().setLength(0);
        MessageExt m2 = msg("ORD-2", "MSG2", 0, 1L);
        MessageExt m3 = msg("ORD-3", "MSG3", 0, 2L);
        new DedupLogListener(log, (msgs, ctx) -> {
            DedupLogListener.delivery(msgs.get(0)).pass(DedupLog.Layer.REDIS, "points:ORD-2", 1000L);
            DedupLogListener.delivery(msgs.get(1)).hit(DedupLog.Layer.REDIS, "points:ORD-3");
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }, DedupLog.Layer.DB, null).consumeMessage(Arrays.asList(m2, m3), context());
        String[] lines = out.toString().split("\n");
        eq(3, lines.length, "pass, hit, executed: " + out);
        check(lines[2].contains("\"bizKey\":\"ORD-2\"") && lines[2].contains("\"layer\":\"redis\",\"decision\":\"executed\"")
                && lines[2].endsWith("\"dedupKey\":\"points:ORD-2\"}"), "executed carries the pass's layer and key: " + lines[2]);

        // an exception: failed with toString(), rethrown as it is
        out.getBuffer().setLength(0);
        final RuntimeException boom = new IllegalStateException("ledger down: \"409\"\n\tat C:\\ledger");
        MessageExt m4 = msg("ORD-4", "MSG4", 1, 3L);
        checks++;
        try {
            new DedupLogListener(log, (msgs, ctx) -> {
                throw boom;
            }).consumeMessage(Arrays.asList(m4), context());
            failures.add("the exception was swallowed");
        } catch (IllegalStateException e) {
            if (e != boom) failures.add("another exception was thrown: " + e);
        }
        check(out.toString().endsWith("\"decision\":\"failed\",\"retryTimes\":1,\"queueId\":\"broker-a:3\",\"queueOffset\":3,"
                + "\"error\":\"java.lang.IllegalStateException: ledger down: \\\"409\\\"\\n\\tat C:\\\\ledger\"}\n"), "failed from an exception: " + out);
        eq(null, DedupLogListener.delivery(m4), "no delivery left behind after an exception");

        // RECONSUME_LATER and null
        out.getBuffer().setLength(0);
        new DedupLogListener(log, (msgs, ctx) -> ConsumeConcurrentlyStatus.RECONSUME_LATER).consumeMessage(Arrays.asList(msg("ORD-5", "MSG5", 0, 4L)), context());
        check(out.toString().endsWith("\"error\":\"listener returned RECONSUME_LATER\"}\n"), "failed from RECONSUME_LATER: " + out);
        out.getBuffer().setLength(0);
        s = new DedupLogListener(log, (msgs, ctx) -> null).consumeMessage(Arrays.asList(msg("ORD-6", "MSG6", 0, 5L)), context());
        eq(null, s, "a null status is returned as null (the client treats it as RECONSUME_LATER)");
        check(out.toString().endsWith("\"error\":\"listener returned null\"}\n"), "failed from null: " + out);

        // ackIndex: the messages after it were not consumed
        out.getBuffer().setLength(0);
        new DedupLogListener(log, (msgs, ctx) -> {
            ctx.setAckIndex(0);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }).consumeMessage(Arrays.asList(msg("ORD-7", "MSG7", 0, 6L), msg("ORD-8", "MSG8", 0, 7L)), context());
        lines = out.toString().split("\n");
        check(lines.length == 2 && lines[0].contains("\"bizKey\":\"ORD-7\"") && lines[0].contains("\"decision\":\"executed\"")
                && lines[1].contains("\"bizKey\":\"ORD-8\"") && lines[1].contains("\"decision\":\"failed\"")
                && lines[1].contains("ackIndex 0, message 1"), "ackIndex splits the batch: " + out);

        // the listener logs the outcome itself: nothing added
        out.getBuffer().setLength(0);
        new DedupLogListener(log, (msgs, ctx) -> {
            DedupLog.Delivery d = DedupLogListener.delivery(msgs.get(0));
            d.pass(DedupLog.Layer.REDIS, "points:ORD-9", 1000L);
            d.failed(DedupLog.Layer.REDIS, "points:ORD-9", "timeout");
            d.released(DedupLog.Layer.REDIS, "points:ORD-9");
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        }).consumeMessage(Arrays.asList(msg("ORD-9", "MSG9", 0, 8L)), context());
        lines = out.toString().split("\n");
        check(lines.length == 3 && lines[2].contains("\"decision\":\"released\""), "the listener's own failed is not repeated: " + out);

        // no KEYS: the msgId is the bizKey; neither: the message is consumed, unlogged, and the problem reported
        out.getBuffer().setLength(0);
        new DedupLogListener(log, (msgs, ctx) -> ConsumeConcurrentlyStatus.CONSUME_SUCCESS).consumeMessage(Arrays.asList(msg(null, "MSG10", 0, 9L)), context());
        check(out.toString().startsWith("{\"ts\":1796011201206,\"bizKey\":\"MSG10\",\"msgId\":\"MSG10\","), "msgId stands in for missing KEYS: " + out);
        out.getBuffer().setLength(0);
        final AtomicInteger ran = new AtomicInteger();
        s = new DedupLogListener(log, (msgs, ctx) -> {
            ran.incrementAndGet();
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }).consumeMessage(Arrays.asList(msg(" ", null, 0, 10L)), context());
        check(ran.get() == 1 && s == ConsumeConcurrentlyStatus.CONSUME_SUCCESS && out.toString().isEmpty(), "a message without a key is consumed, not logged");
        check(errors.size() == 1 && errors.get(0) instanceof IllegalArgumentException, "and the problem goes to onError: " + errors);

        // a custom bizKey, and delivery() from another thread during the call
        out.getBuffer().setLength(0);
        final MessageExt m11 = msg("K1 K2", "MSG11", 0, 11L);
        new DedupLogListener(log, (msgs, ctx) -> {
            final AtomicReference<DedupLog.Delivery> seen = new AtomicReference<DedupLog.Delivery>();
            Thread worker = new Thread(() -> seen.set(DedupLogListener.delivery(m11)));
            worker.start();
            try {
                worker.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            seen.get().pass(DedupLog.Layer.STATE, "ISSUED");
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }, DedupLog.Layer.NONE, m -> m.getKeys().split(" ")[1]).consumeMessage(Arrays.asList(m11), context());
        lines = out.toString().split("\n");
        check(lines.length == 2 && lines[0].contains("\"bizKey\":\"K2\"") && lines[0].contains("\"layer\":\"state\",\"decision\":\"pass\"")
                && lines[1].contains("\"layer\":\"state\",\"decision\":\"executed\""), "custom bizKey, delivery() from a worker thread: " + out);
    }

    private DedupLogTest() {
    }
}
