import type { NormalizedEvent } from "../events/model.ts";
import { str } from "./sources.ts";

/** A send span that names no record. */
export const isUntiedSend = (e: NormalizedEvent): boolean =>
  (e.kind === "publish" || e.kind === "send_attempt") && e.msgId === null && str(e.detail.spanId) !== null;

/**
 * A send span that names no record (kafkajs writes no offset on it; the Java agent none when the send failed) still
 * made the record that its consumers' process spans read: those are its children, or link to it (the creation
 * context). Such a publish takes the msgId of the consumption that descends from it, so its copies and a retry
 * of it are counted like those of any other publish. Span ids are random 64-bit values: one names one span.
 */
export function tieSendsToRecords(events: readonly NormalizedEvent[]): readonly NormalizedEvent[] {
  const untied = events.filter(isUntiedSend);
  // Every key is diagnosed through here; most have no span at all, and their pool is returned as it came.
  if (untied.length === 0) return events;
  const recordOf = new Map<string, string | null>();
  const note = (spanId: string, msgId: string) => {
    const known = recordOf.get(spanId);
    // Two records claiming one send: it is not this function's place to choose.
    recordOf.set(spanId, known === undefined || known === msgId ? msgId : null);
  };
  for (const e of events) {
    if (e.kind !== "consume_start" || e.msgId === null) continue;
    const parent = str(e.detail.parentSpanId);
    if (parent !== null) note(parent, e.msgId);
    const links = e.detail.links;
    if (Array.isArray(links)) for (const link of links) if (typeof link === "string") note(link, e.msgId);
  }
  const tied = new Map<NormalizedEvent, NormalizedEvent>();
  for (const send of untied) {
    const msgId = recordOf.get(str(send.detail.spanId)!);
    if (msgId) tied.set(send, { ...send, msgId, detail: { ...send.detail, msgIdFrom: "process_span" } });
  }
  return events.map((e) => tied.get(e) ?? e);
}
