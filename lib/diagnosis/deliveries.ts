import type { NormalizedEvent } from "../events/model.ts";
import { isEffectRow } from "./effect-rows.ts";
import { instanceRelation, mostSpecific } from "./identity.ts";
import { includesString, num, originalTopic, sourceKind, str, strings } from "./sources.ts";
import type { ConsumeStatus, DedupDecision, DedupDecisionKind, Delivery, DiagnosisOptions, Effect, SourceKind } from "./types.ts";
import { DEDUP_LAYERS, type DedupLayer } from "./vocabulary.ts";

/**
 * Reconstructs the key's deliveries: one per consume attempt of one message copy by one instance, joined from
 * every source that saw it. Traces give start/end (paired by requestId + msgId), the client log adds failure and
 * timeout lines and consumeMessageDirectly starts, the dedup log adds each layer's decision and whether the
 * business ran. A source that saw a delivery alone (dedup log without traces, a direct resend) still makes one.
 */

/** The key's own events: filed under it, or keyless but naming one of its msgIds or listing it in detail.keys. */
export function selectKeyEvents(
  bizKey: string,
  events: readonly NormalizedEvent[],
  /** The msgIds of the key's filed events, when the caller knows them from beyond `events` (pool.ts). */
  msgIds: ReadonlySet<string> = new Set(events.filter((e) => e.bizKey === bizKey && e.msgId !== null).map((e) => e.msgId!)),
): NormalizedEvent[] {
  const seen = new Set<string>();
  const selected: NormalizedEvent[] = [];
  for (const e of events) {
    const mine =
      e.bizKey === bizKey || (e.bizKey === null && ((e.msgId !== null && msgIds.has(e.msgId)) || includesString(e.detail.keys, bizKey)));
    if (!mine || seen.has(e.id)) continue;
    seen.add(e.id);
    selected.push(e);
  }
  return selected;
}

interface Attempt {
  start: NormalizedEvent | null;
  end: NormalizedEvent | null;
  /** Client-log failure/timeout lines and acks about this attempt. */
  notes: NormalizedEvent[];
  run: DedupRun | null;
}

interface DedupRun {
  events: NormalizedEvent[];
  decisions: DedupDecision[];
}

/**
 * Time order, and within one millisecond the order an attempt goes through: its start, the dedup layers' answers
 * (bloom, redis, db, state), the business effect, a released marker, its end, the ack. A consumer writes several
 * of these in one millisecond, and the store returns equal times in id (hash) order, which could otherwise put an
 * effect before the layer that let it through and split one attempt into two.
 */
const STAGE: Partial<Record<string, number>> = { consume_start: 0, business_effect: 20, consume_end: 40, ack: 50 };
function stage(e: NormalizedEvent): number {
  if (e.kind !== "dedup") return STAGE[e.kind] ?? 25;
  if (e.detail.decision === "released") return 30;
  const layer = (DEDUP_LAYERS as readonly unknown[]).indexOf(e.detail.layer);
  return 10 + (layer < 0 ? 5 : layer);
}
const byTs = (a: NormalizedEvent, b: NormalizedEvent) => a.ts - b.ts || stage(a) - stage(b);

/** Client-log lines that report how an attempt ended; they annotate the traced attempt rather than stand alone. */
const isStatusNote = (e: NormalizedEvent) =>
  e.kind === "consume_end" && sourceKind(e) === "client_log" && (e.detail.template === "consume_exception" || e.detail.template === "send_expire_msg_back");

export function reconstructDeliveries(keyEvents: readonly NormalizedEvent[], options: DiagnosisOptions): Delivery[] {
  const sorted = [...keyEvents].sort(byTs);
  const attempts = pairConsumeEvents(sorted.filter((e) => (e.kind === "consume_start" || e.kind === "consume_end") && !isStatusNote(e)));
  const notes = sorted.filter((e) => isStatusNote(e) || e.kind === "ack");
  // Rows of the business table are no dedup line: effect-rows.ts puts them next to the deliveries.
  const runs = buildDedupRuns(sorted.filter((e) => e.kind === "dedup" || (e.kind === "business_effect" && !isEffectRow(e))));

  const unplaced = attachNotes(notes, attempts, options);
  const standalone = matchRuns(runs, attempts, options);
  const fromRuns = standalone.map((run): Attempt => ({ start: null, end: null, notes: [], run }));
  const stillUnplaced = attachNotes(unplaced, fromRuns, options);
  const fromNotes = stillUnplaced.map((note): Attempt => ({ start: null, end: null, notes: [note], run: null }));

  const deliveries = [...attempts, ...fromRuns, ...fromNotes].map((a) => toDelivery(a, options));
  inferGroups(deliveries);
  return order(deliveries, options.clockSkewMs);
}

/** SubBefore/SubAfter share requestId + msgId; pair them in time order. Anything else pairs by instance and time. */
function pairConsumeEvents(events: NormalizedEvent[]): Attempt[] {
  const attempts: Attempt[] = [];
  const byRequest = new Map<string, { starts: NormalizedEvent[]; ends: NormalizedEvent[] }>();
  const looseEnds: NormalizedEvent[] = [];
  for (const e of events) {
    const requestId = str(e.detail.requestId);
    if (requestId === null || e.msgId === null) {
      if (e.kind === "consume_start") attempts.push({ start: e, end: null, notes: [], run: null });
      else looseEnds.push(e);
      continue;
    }
    const key = `${requestId}\u0000${e.msgId}`;
    const sides = byRequest.get(key) ?? { starts: [], ends: [] };
    (e.kind === "consume_start" ? sides.starts : sides.ends).push(e);
    byRequest.set(key, sides);
  }
  for (const { starts, ends } of byRequest.values()) {
    for (let i = 0; i < Math.max(starts.length, ends.length); i++) {
      const start = starts[i] ?? null;
      const end = ends[i] ?? null;
      if (start === null && end !== null) looseEnds.push(end);
      else attempts.push({ start, end, notes: [], run: null });
    }
  }
  for (const end of looseEnds) {
    const open = attempts
      .filter((a) => a.start !== null && a.end === null && a.start.msgId === end.msgId && a.start.ts <= end.ts && instanceRelation(a.start.instance, end.instance) !== "different")
      .sort((a, b) => b.start!.ts - a.start!.ts)[0];
    if (open !== undefined) open.end = end;
    else attempts.push({ start: null, end, notes: [], run: null });
  }
  return attempts;
}

function attemptTime(a: Attempt): number {
  return a.start?.ts ?? a.run?.events[0]?.ts ?? a.end?.ts ?? a.notes[0]?.ts ?? 0;
}

function attemptInstance(a: Attempt): string | null {
  return a.start?.instance ?? a.end?.instance ?? a.run?.events[0]?.instance ?? a.notes[0]?.instance ?? null;
}

function attemptRetry(a: Attempt): number | null {
  return a.start?.retryTimes ?? a.run?.events.find((e) => e.retryTimes !== null)?.retryTimes ?? a.notes.find((e) => e.retryTimes !== null)?.retryTimes ?? null;
}

function attemptMsgId(a: Attempt): string | null {
  return a.start?.msgId ?? a.end?.msgId ?? a.run?.events.find((e) => e.msgId !== null)?.msgId ?? a.notes[0]?.msgId ?? null;
}

/**
 * A failure line, timeout line or ack belongs to the latest attempt of the same message on the same process that
 * began before it. A timeout line comes one to two consumeTimeouts after the start (the expiry sweep runs every
 * consumeTimeout), while the consume still runs.
 */
function attachNotes(notes: NormalizedEvent[], attempts: Attempt[], options: DiagnosisOptions): NormalizedEvent[] {
  const unplaced: NormalizedEvent[] = [];
  for (const note of notes) {
    const candidates = attempts.filter((a) => {
      const msgId = attemptMsgId(a);
      const retry = attemptRetry(a);
      if (msgId !== null && note.msgId !== null && msgId !== note.msgId) return false;
      if (retry !== null && note.retryTimes !== null && retry !== note.retryTimes) return false;
      if (instanceRelation(attemptInstance(a), note.instance) === "different") return false;
      const from = attemptTime(a) - options.clockSkewMs;
      const to = (a.end?.ts ?? attemptTime(a) + 2 * options.consumeTimeoutMs) + options.clockSkewMs;
      return note.ts >= from && note.ts <= to;
    });
    // The skew allowance is for attempts named by another clock; an attempt that began before the note on the note's
    // own clock is the one it reports on, even when a later attempt of the same round starts within the allowance.
    const distance = (a: Attempt) => (attemptTime(a) <= note.ts ? note.ts - attemptTime(a) : Number.MAX_SAFE_INTEGER / 2 + attemptTime(a) - note.ts);
    const best = candidates.sort((a, b) => distance(a) - distance(b))[0];
    if (best === undefined) unplaced.push(note);
    else best.notes.push(note);
  }
  return unplaced;
}

function decisionOf(e: NormalizedEvent): DedupDecision | null {
  const decision = str(e.detail.decision);
  const layer = str(e.detail.layer);
  if (decision === null || !["pass", "hit", "released", "executed", "failed"].includes(decision)) return null;
  const known = layer !== null && (DEDUP_LAYERS as readonly string[]).includes(layer) ? (layer as DedupLayer) : "none";
  return {
    eventId: e.id,
    ts: e.ts,
    layer: known,
    decision: decision as DedupDecisionKind,
    instance: e.instance,
    dedupKey: str(e.detail.dedupKey),
    ttlMs: num(e.detail.ttlMs),
  };
}

/**
 * Dedup lines of one delivery: same group, instance, message, retry and queue position, up to the decision that
 * ends a delivery (executed, hit, failed).
 */
function buildDedupRuns(events: NormalizedEvent[]): DedupRun[] {
  const open = new Map<string, DedupRun>();
  const runs: DedupRun[] = [];
  for (const e of events) {
    const decision = decisionOf(e);
    if (decision === null) continue;
    const key = [e.group, e.instance, e.msgId, e.retryTimes, e.queue, e.queueOffset].join("\u0000");
    let run = open.get(key);
    const last = run?.decisions[run.decisions.length - 1]?.decision;
    const closed = last !== undefined && last !== "pass";
    // A later step can fail after the effect committed (`executed`, then `failed`), and markers are released after
    // a failure, one line per layer: those lines still belong to the same delivery.
    const continues =
      (last === "executed" && decision.decision === "failed") || ((last === "failed" || last === "released") && decision.decision === "released");
    if (run === undefined || (closed && !continues)) {
      run = { events: [], decisions: [] };
      runs.push(run);
      open.set(key, run);
    }
    run.events.push(e);
    run.decisions.push(decision);
  }
  return runs;
}

/**
 * Joins each dedup run to the consume attempt it happened in: same message and retry, a compatible instance, and
 * the run's first decision inside the attempt (with clock tolerance). Closest first, one run per attempt. Runs no
 * attempt claims are deliveries of their own (no trace for them).
 */
function matchRuns(runs: DedupRun[], attempts: Attempt[], options: DiagnosisOptions): DedupRun[] {
  const pairs: { run: DedupRun; attempt: Attempt; cost: number }[] = [];
  for (const run of runs) {
    const first = run.events[0]!;
    const retry = run.events.find((e) => e.retryTimes !== null)?.retryTimes ?? null;
    for (const attempt of attempts) {
      const msgId = attemptMsgId(attempt);
      const attemptRetryTimes = attemptRetry(attempt);
      if (first.msgId !== null && msgId !== null && first.msgId !== msgId) continue;
      if (retry !== null && attemptRetryTimes !== null && retry !== attemptRetryTimes) continue;
      const group = attempt.start?.group ?? attempt.end?.group ?? null;
      if (group !== null && first.group !== null && group !== first.group) continue;
      const relation = instanceRelation(attemptInstance(attempt), first.instance);
      if (relation === "different") continue;
      const startTs = attemptTime(attempt);
      const endTs = attempt.end?.ts ?? startTs + options.consumeTimeoutMs;
      if (first.ts < startTs - options.clockSkewMs || first.ts > endTs + options.clockSkewMs) continue;
      const cost = Math.abs(first.ts - startTs) + (relation === "incomparable" ? options.clockSkewMs : 0);
      pairs.push({ run, attempt, cost });
    }
  }
  pairs.sort((a, b) => a.cost - b.cost);
  const taken = new Set<DedupRun>();
  for (const { run, attempt } of pairs) {
    if (taken.has(run) || attempt.run !== null) continue;
    attempt.run = run;
    taken.add(run);
  }
  return runs.filter((r) => !taken.has(r));
}

function consumeStatus(a: Attempt, costMs: number | null, options: DiagnosisOptions): { status: ConsumeStatus; contextName: string | null } {
  const names = [a.end, ...a.notes].map((e) => (e === null ? null : str(e.detail.contextName)));
  const code = a.end === null ? null : num(a.end.detail.contextCode);
  if (code === 1 || names.includes("TIME_OUT") || (costMs !== null && costMs >= options.consumeTimeoutMs)) return { status: "timeout", contextName: "TIME_OUT" };
  const failed = names.find((n) => n !== null && n !== "SUCCESS");
  if (failed !== undefined || (code !== null && code !== 0) || a.end?.success === false) return { status: "failed", contextName: failed ?? null };
  if (a.end?.success === true || a.notes.some((n) => n.kind === "ack" && n.success !== false)) return { status: "success", contextName: names[0] ?? null };
  return { status: "unknown", contextName: null };
}

/**
 * What the business did. The dedup log, when it covers the delivery, is the application's own account; without it
 * a consumer that reported success ran the business, and a failed or unfinished one may or may not have.
 */
function effectOf(decisions: DedupDecision[], status: ConsumeStatus): Effect {
  if (decisions.some((d) => d.decision === "executed")) return "executed";
  if (decisions.some((d) => d.decision === "hit")) return "skipped";
  if (decisions.some((d) => d.decision === "failed")) return "failed";
  if (status === "success") return "ran";
  return decisions.length > 0 ? "unfinished" : "unknown";
}

function toDelivery(a: Attempt, options: DiagnosisOptions): Delivery {
  const parts = [a.start, a.end, ...(a.run?.events ?? []), ...a.notes].filter((e): e is NormalizedEvent => e !== null);
  const first = <T>(pick: (e: NormalizedEvent) => T | null): T | null => {
    for (const e of parts) {
      const v = pick(e);
      if (v !== null) return v;
    }
    return null;
  };
  const decisions = a.run?.decisions ?? [];
  const startEvent = a.start ?? a.run?.events[0] ?? a.end ?? a.notes[0]!;
  const traceCost = a.end === null ? null : num(a.end.detail.costTime);
  const start = a.start?.ts ?? a.run?.events[0]?.ts ?? (a.end !== null ? a.end.ts - (traceCost ?? 0) : startEvent.ts);
  const end = a.end?.ts ?? null;
  const costMs = traceCost ?? (a.start !== null && end !== null ? end - a.start.ts : null);
  const { status, contextName } = consumeStatus(a, costMs, options);
  const topics = parts.map((e) => e.topic);
  const ack = a.notes.find((n) => n.kind === "ack");
  const sources = [...new Set(parts.map(sourceKind))] as SourceKind[];
  return {
    id: "",
    group: first((e) => e.group),
    broker: startEvent.broker,
    msgId: first((e) => e.msgId),
    offsetMsgId: first((e) => e.offsetMsgId),
    topic: topics.map(originalTopic).find((t) => t !== null) ?? topics.find((t) => t !== null) ?? null,
    queue: first((e) => e.queue),
    queueOffset: first((e) => e.queueOffset),
    instance: mostSpecific(parts.map((e) => e.instance)),
    start,
    startPrecision: startEvent.tsPrecision,
    end,
    retryTimes: first((e) => e.retryTimes),
    direct: parts.some((e) => e.detail.direct === true),
    redelivered: first((e) => e.redelivered),
    consume: status,
    contextName,
    costMs,
    ackTs: status === "success" ? (end ?? ack?.ts ?? null) : (ack?.ts ?? null),
    dedup: decisions,
    effect: effectOf(decisions, status),
    sources,
    eventIds: parts.map((e) => e.id),
    startEventId: startEvent.id,
    endEventId: a.end?.id ?? null,
  };
}

/**
 * SubAfter of old clients and direct resends name no group. The same message consumed on the same process belongs
 * to that process's group; failing that, a key consumed by one group only belongs to it.
 */
function inferGroups(deliveries: Delivery[]): void {
  const groups = new Set(deliveries.map((d) => d.group).filter((g): g is string => g !== null));
  for (const d of deliveries) {
    if (d.group !== null) continue;
    const sibling = deliveries.find((o) => o.group !== null && o.msgId === d.msgId && instanceRelation(o.instance, d.instance) === "same");
    d.group = sibling?.group ?? (groups.size === 1 ? [...groups][0]! : null);
  }
}

/**
 * Time order, corrected where clocks cannot be trusted: within the skew, a retry cannot precede the attempt it
 * retries, a delivery that hit a marker came after the one that set it, and of two deliveries of one message that
 * carry no retry round (spans), a failed one came before the one that succeeded (the failure brought it again). Such a delivery is moved after the
 * other one and says so (`reordered`). Only deliveries of one group are compared; groups are then merged by time.
 */
function order(deliveries: Delivery[], skewMs: number): Delivery[] {
  const groups = new Map<string | null, Delivery[]>();
  for (const d of [...deliveries].sort((a, b) => a.start - b.start)) groups.set(d.group, [...(groups.get(d.group) ?? []), d]);
  for (const list of groups.values()) settle(list, skewMs);
  const lists = [...groups.values()];
  const merged: Delivery[] = [];
  for (;;) {
    const next = lists.filter((l) => l.length > 0).sort((a, b) => a[0]!.start - b[0]!.start)[0];
    if (next === undefined) break;
    merged.push(next.shift()!);
  }
  merged.forEach((d, i) => (d.id = `d${i + 1}`));
  return merged;
}

function settle(list: Delivery[], skewMs: number): void {
  for (let pass = 0; pass < list.length; pass++) {
    let swapped = false;
    for (let i = 0; i + 1 < list.length; i++) {
      const a = list[i]!;
      const b = list[i + 1]!;
      const reason = mustFollow(a, b, list.slice(0, i), skewMs);
      if (reason === null) continue;
      list[i] = b;
      list[i + 1] = a;
      a.reordered = reason;
      swapped = true;
    }
    if (!swapped) break;
  }
}

function mustFollow(a: Delivery, b: Delivery, before: readonly Delivery[], skewMs: number): Delivery["reordered"] | null {
  if (b.start - a.start > skewMs || instanceRelation(a.instance, b.instance) === "same") return null;
  if (a.msgId !== null && a.msgId === b.msgId && a.retryTimes !== null && b.retryTimes !== null && a.retryTimes > b.retryTimes) return "retry_times";
  if (a.msgId !== null && a.msgId === b.msgId && a.retryTimes !== null && b.retryTimes !== null && a.retryTimes < b.retryTimes) return null;
  if (a.msgId !== null && a.msgId === b.msgId && a.retryTimes === null && b.retryTimes === null && a.consume === "success" && b.consume === "failed") return "failure_first";
  // A layer hit on `a` that `b` passed, and no earlier delivery left a marker on: only b can have set the marker a
  // saw. An earlier attempt that released its marker after failing left none. (A local Bloom filter may pass both;
  // it does not count.)
  const layers = (d: Delivery, decision: string) => new Set(d.dedup.filter((x) => x.decision === decision).map((x) => x.layer));
  const aHits = layers(a, "hit");
  const bHits = layers(b, "hit");
  const left = (d: Delivery) => [...layers(d, "pass")].filter((l) => !layers(d, "released").has(l));
  const setEarlier = new Set(before.flatMap(left));
  const aSawB = [...layers(b, "pass")].some((l) => aHits.has(l) && !setEarlier.has(l));
  const bSawA = [...layers(a, "pass")].some((l) => bHits.has(l));
  return aSawB && !bSawA ? "dedup_order" : null;
}
