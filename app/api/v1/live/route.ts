import { liveChannel } from "@/lib/live/channel.ts";
import { logger } from "@/lib/log.ts";
import { getStore } from "@/lib/store/index.ts";
import { latestDuplicates, type LiveFilter } from "@/lib/views/live.ts";

export const dynamic = "force-dynamic";

/** At most one look at the verdicts per this long, however fast the worker reports. */
const THROTTLE_MS = 1000;
/** A comment line now and then keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 20_000;

/**
 * GET /api/v1/live (server-sent events): `duplicates` with the duplicates stored since the stream opened (newest
 * first, optionally for one group/topic/cause), `diagnosed` whenever the worker stored verdicts, so a page
 * can refresh its charts, and `alerts` whenever the alert evaluation moved an alert, so the alerts page can.
 */
export async function GET(request: Request) {
  const url = new URL(request.url);
  const filter: LiveFilter = { group: url.searchParams.get("group"), topic: url.searchParams.get("topic"), cause: url.searchParams.get("cause") };
  const { driver } = await getStore();
  // The newest duplicates when the stream opened, then at the last look: bounded, and enough to tell what is new.
  let seen = new Set((await latestDuplicates(driver, filter)).map((d) => d.id));
  const encoder = new TextEncoder();
  const log = logger.child({ component: "live" });
  let cleanup = () => {};

  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      const event = (name: string, data: unknown) => send(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      let pending: ReturnType<typeof setTimeout> | undefined;
      let keys = 0;
      const look = async () => {
        pending = undefined;
        const diagnosed = keys;
        keys = 0;
        try {
          const latest = await latestDuplicates(driver, filter);
          const fresh = latest.filter((d) => !seen.has(d.id));
          seen = new Set(latest.map((d) => d.id));
          if (fresh.length > 0) event("duplicates", fresh);
          event("diagnosed", { keys: diagnosed });
        } catch (error) {
          log.warn({ err: error }, "live: reading new duplicates failed");
        }
      };
      const unsubscribe = liveChannel().subscribe((message) => {
        // A few a minute at most (one per evaluation round that moved an alert): passed on as they come.
        if (message.type === "alerts") return event("alerts", { at: message.at });
        keys += message.keys;
        pending ??= setTimeout(look, THROTTLE_MS);
      });
      const heartbeat = setInterval(() => send(": ping\n\n"), HEARTBEAT_MS);
      cleanup = () => {
        unsubscribe();
        clearInterval(heartbeat);
        if (pending) clearTimeout(pending);
        cleanup = () => {};
      };
      request.signal.addEventListener("abort", () => {
        cleanup();
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      });
      send("retry: 5000\n\n");
      event("ready", { seen: seen.size });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
  });
}
