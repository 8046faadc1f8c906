package dupscope.dedup;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a script of DedupLog calls read from standard input and prints one line per decision: the dedup line, or
 * {@code refused <message>} when the delivery refused it. tests/helpers/dedup-emitter.ts runs the same script
 * through the Node.js emitter, so that the tests can require both to accept and refuse the same sequences and to
 * write the same bytes. One command per line, words separated by one space:
 *
 * <pre>
 * log &lt;group&gt; &lt;broker&gt; &lt;instance&gt;       a new log, writing to standard output; the current one from now on
 * clock &lt;epoch ms&gt;                         the time every log reads until the next clock command
 * delivery &lt;name&gt; &lt;bizKey&gt; [msgId]         a new delivery of the current log
 * &lt;name&gt; &lt;layer&gt; &lt;decision&gt; [dedupKey]     one decision of that delivery
 * </pre>
 */
public final class DedupLogScript {
    public static void main(String[] args) throws IOException {
        final AtomicLong now = new AtomicLong();
        Map<String, DedupLog.Delivery> deliveries = new HashMap<String, DedupLog.Delivery>();
        DedupLog log = null;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isEmpty()) continue;
            String[] w = line.split(" ");
            if (w[0].equals("log")) {
                DedupLog.Broker broker = DedupLog.Broker.valueOf(w[2].toUpperCase(Locale.ROOT));
                log = DedupLog.builder(w[1]).broker(broker).instance(w[3]).clock(now::get).to(System.out).build();
            } else if (w[0].equals("clock")) {
                now.set(Long.parseLong(w[1]));
            } else if (w[0].equals("delivery")) {
                DedupLog.Delivery d = log.delivery(w[2]);
                if (w.length > 3) d.msgId(w[3]);
                deliveries.put(w[1], d);
            } else {
                DedupLog.Layer layer = DedupLog.Layer.valueOf(w[1].toUpperCase(Locale.ROOT));
                DedupLog.Decision decision = DedupLog.Decision.valueOf(w[2].toUpperCase(Locale.ROOT));
                try {
                    deliveries.get(w[0]).write(layer, decision, w.length > 3 ? w[3] : null, null, null);
                } catch (IllegalStateException refused) {
                    System.out.println("refused " + refused.getMessage());
                }
            }
        }
        System.out.flush();
    }

    private DedupLogScript() {
    }
}
