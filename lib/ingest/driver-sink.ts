import type { NormalizedEvent } from "../events/model.ts";
import type { SqlDriver } from "../store/driver.ts";
import { insertEvents } from "../store/events-repo.ts";
import type { EventSink } from "./sink.ts";

/**
 * Writes batches into a store this process already has open: the server loading its own demo data, where going
 * out over HTTP to itself would only add a token and a URL to get wrong, and `npm run demo` on a store no server
 * holds. Like storeSink, it trusts the collectors' output to match the ingest schema (the contract test holds
 * them to it).
 */
export function driverSink(driver: SqlDriver): EventSink {
  return {
    description: "this process's store",
    write: (events: NormalizedEvent[]) => insertEvents(driver, events),
    async close() {},
  };
}
