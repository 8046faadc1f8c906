import { loadDemoDay, type DemoResult } from "../../lib/demo/load.ts";
import type { DemoDayOptions } from "../../lib/demo/day.ts";
import { httpSink } from "../../lib/ingest/http-sink.ts";
import { startServer, type RunningServer } from "./server.ts";
import { backends } from "./stores.ts";

/**
 * The browser tests' server: the built app (`next start`) on a fresh embedded store, loaded with a simulated demo
 * day through the HTTP ingest path and diagnosed by the server's own worker before any page is opened.
 */

export interface DemoServer {
  server: RunningServer;
  demo: DemoResult;
  /** Stops the server and removes its store. */
  stop(): Promise<void>;
}

/** Until the diagnosis worker has had nothing queued three polls in a row. */
export async function waitForDiagnosis(url: string, withinMs = 120_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  let idle = 0;
  while (idle < 3) {
    if (Date.now() > deadline) throw new Error(`the diagnosis worker did not catch up within ${withinMs / 1000} s`);
    const status = (await (await fetch(`${url}/api/v1/demo`)).json()) as { diagnosisQueue: number };
    idle = status.diagnosisQueue === 0 ? idle + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
}

export async function startDemoServer(options: {
  /** The day's size: hours, simulator runs, scale of the keys. */
  day: Omit<DemoDayOptions, "now">;
  /** Added to the server's environment (the diagnosis worker runs every 200 ms unless this says otherwise). */
  env?: Record<string, string>;
  /** Before the day is loaded: what must be in place as its events arrive (a rule that fires on them). */
  beforeLoad?: (url: string) => Promise<void>;
  /** After the day is loaded and before its diagnosis is waited for: events of the test's own. */
  afterLoad?: (url: string) => Promise<void>;
}): Promise<DemoServer> {
  const store = await backends.find((b) => b.name === "pglite")!.create();
  const server = await startServer({ ...store.env, DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "200", ...options.env }).catch(async (error: unknown) => {
    await store.dispose();
    throw error;
  });
  const stop = async () => {
    await server.stop();
    await store.dispose();
  };
  try {
    await options.beforeLoad?.(server.url);
    const demo = await loadDemoDay({ now: Date.now(), ...options.day, sink: httpSink(server.url) });
    await options.afterLoad?.(server.url);
    await waitForDiagnosis(server.url);
    return { server, demo, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
