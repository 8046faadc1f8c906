import type { NormalizedEvent } from "../../events/model.ts";
import { evidence, type Evidence } from "../evidence.ts";
import { instanceRelation } from "../identity.ts";
import type { Pair } from "../pair.ts";
import { str } from "../sources.ts";
import type { DedupDecision, Delivery } from "../types.ts";
import type { DedupLayer, Defect, Outcome } from "../vocabulary.ts";

/**
 * Whether the dedup layers caught the duplicate, and for a leak which defect let it through. The dedup log is
 * the consumer's own account (docs/dedup-log.md): a `hit` means the delivery was skipped (caught by that layer);
 * a delivery that passed every layer and ran is a leak; with no dedup line for the delivery nobody can say.
 */
export interface OutcomeResult {
  outcome: Outcome;
  layer?: DedupLayer;
  defect?: Defect;
  evidence: Evidence[];
}

const DURABLE: ReadonlySet<string> = new Set(["db", "state"]);
/** A business that finished within this long of the ack was not acknowledged early; only clearly later counts. */
const ACK_MARGIN_MS = 10;

function checkTs(d: Delivery): number {
  return d.dedup[0]?.ts ?? d.start;
}

function keyOf(d: Delivery): DedupDecision | undefined {
  return d.dedup.find((x) => x.decision === "pass" && x.dedupKey !== null) ?? d.dedup.find((x) => x.dedupKey !== null);
}

export function judgeOutcome(p: Pair): OutcomeResult {
  const logged = fromDedupLog(p);
  return p.rows.length === 0 ? logged : fromTable(p, logged);
}

function fromDedupLog(p: Pair): OutcomeResult {
  const { second } = p;
  if (second.dedup.length === 0) return { outcome: "unknown", evidence: [] };
  const hit = second.dedup.find((d) => d.decision === "hit" && d.layer !== "none");
  if (hit !== undefined) {
    return {
      outcome: "caught",
      layer: hit.layer as DedupLayer,
      evidence: [evidence("dedup_hit", "outcome", [hit.eventId], { layer: hit.layer, instance: hit.instance ?? second.instance, ts: hit.ts })],
    };
  }
  const found: Evidence[] = [];
  const passes = second.dedup.filter((d) => d.decision === "pass");
  if (passes.length > 0) {
    found.push(evidence("dedup_passed", "outcome", passes.map((d) => d.eventId), { layers: passes.map((d) => d.layer).join(", "), instance: second.instance, ts: passes[0]!.ts }));
  }
  const firstDone = p.first.dedup.find((d) => d.decision === "executed");
  const secondDone = second.dedup.find((d) => d.decision === "executed");
  if (firstDone !== undefined && secondDone !== undefined) {
    found.push(evidence("executed_twice", "outcome", [firstDone.eventId, secondDone.eventId], { firstInstance: p.first.instance, firstTs: firstDone.ts, secondInstance: second.instance, secondTs: secondDone.ts }));
  }
  const failed = second.dedup.find((d) => d.decision === "failed");
  if (failed !== undefined && secondDone === undefined) {
    found.push(evidence("second_failed", "outcome", [failed.eventId], { instance: second.instance, ts: failed.ts }));
  }
  const defect = findDefect(p);
  return defect === null ? { outcome: "leaked", evidence: found } : { outcome: "leaked", defect: defect.defect, evidence: [...found, ...defect.evidence] };
}

/**
 * The business table's own account (`dupscope probe`): one row per committed effect of the key in the group, read
 * from the database. Two rows confirm a leak and give the gap between the two writes; one row means the effect
 * happened once, so the duplicate was caught (the layer, when the dedup log named one). A duplicate that wrote no
 * row while every row belongs to another delivery was caught too. The table settles what the dedup log left open
 * and never overrules two `executed` lines: a probe may not see every effect (a row deleted, a second table).
 * With rows the table cannot place on a delivery, a dedup `hit` on the duplicate stands.
 */
function fromTable(p: Pair, logged: OutcomeResult): OutcomeResult {
  const { first, second, rows } = p;
  const probe = str(rows[0]!.detail.probe) ?? "?";
  const loggedTwice = logged.evidence.some((e) => e.code === "executed_twice");
  const caught = (found: Evidence): OutcomeResult => {
    if (loggedTwice) return { ...logged, evidence: [...logged.evidence, found] };
    // A leak's defect does not belong to a catch; what the layers said (passed, failed) still does.
    const result: OutcomeResult = { outcome: "caught", evidence: [...logged.evidence.filter((e) => e.role === "outcome"), found] };
    if (logged.outcome === "caught" && logged.layer !== undefined) result.layer = logged.layer;
    return result;
  };
  const leaked = (a: NormalizedEvent, b: NormalizedEvent): OutcomeResult => {
    const found = evidence("written_twice", "outcome", [a.id, b.id], {
      probe,
      rows: rows.length,
      firstInstance: a.instance,
      firstTs: a.ts,
      secondInstance: b.instance,
      secondTs: b.ts,
      gapMs: b.ts - a.ts,
    });
    if (logged.outcome !== "leaked") return { outcome: "leaked", evidence: [...(logged.outcome === "caught" ? [] : logged.evidence), found] };
    return { ...logged, evidence: [...logged.evidence, found] };
  };

  if (rows.length === 1) {
    const row = rows[0]!;
    return caught(evidence("written_once", "outcome", [row.id], { probe, instance: row.instance, ts: row.ts }));
  }
  const writer = new Map(p.siblings.flatMap((d) => (d.effectRows ?? []).map((id) => [id, d] as const)));
  const own = rows.find((r) => writer.get(r.id) === second);
  if (own !== undefined) {
    const before = rows.filter((r) => r !== own && r.ts <= own.ts);
    const prior = rows.find((r) => writer.get(r.id) === first) ?? before[before.length - 1] ?? rows.find((r) => r !== own)!;
    return prior.ts <= own.ts ? leaked(prior, own) : leaked(own, prior);
  }
  if (rows.every((r) => writer.has(r.id))) {
    return caught(evidence("not_written", "outcome", [second.startEventId, ...rows.map((r) => r.id)], { probe, rows: rows.length, instance: second.instance, ts: second.start }));
  }
  if (logged.outcome === "caught") return logged;
  // Rows no delivery can be said to have written: the group's effect happened twice, and this duplicate may be why.
  const prior = rows.find((r) => writer.get(r.id) === first) ?? rows[0]!;
  const next = rows.find((r) => r !== prior && !writer.has(r.id)) ?? rows.find((r) => r !== prior)!;
  return prior.ts <= next.ts ? leaked(prior, next) : leaked(next, prior);
}

/**
 * The defect, most specific first: a dedup key that is not the business key explains any leak of a new msgId; an
 * early ack explains a leak while the business was still running; two checks racing within milliseconds (or while
 * the first was still in flight) is a non-atomic check; a gap past the marker's TTL with nothing durable behind
 * it is an expired marker; anything else that only volatile layers guarded lacks a durable layer.
 */
function findDefect(p: Pair): { defect: Defect; evidence: Evidence[] } | null {
  const { first, second, options } = p;
  const crossHost = instanceRelation(first.instance, second.instance) !== "same";
  const tolerance = crossHost ? options.clockSkewMs : 0;
  const gapMs = checkTs(second) - checkTs(first);
  const ids = [first.dedup[0]?.eventId, second.dedup[0]?.eventId];

  const a = keyOf(first);
  const b = keyOf(second);
  if (a !== undefined && b !== undefined && a.dedupKey !== b.dedupKey) {
    const found = [evidence("dedup_keys_differ", "defect", [a.eventId, b.eventId], { first: a.dedupKey!, second: b.dedupKey! })];
    const msgId = [first.msgId, second.msgId].find((m) => m !== null && (a.dedupKey!.includes(m) || b.dedupKey!.includes(m)));
    if (msgId !== undefined && msgId !== null) found.push(evidence("dedup_key_is_msg_id", "defect", [a.eventId], { dedupKey: a.dedupKey!.includes(msgId) ? a.dedupKey! : b.dedupKey!, msgId }));
    return { defect: "dedup_key_not_business_key", evidence: found };
  }
  const firstPass = first.dedup.find((d) => d.decision === "pass" && d.layer !== "none");
  const secondPass = second.dedup.find((d) => d.decision === "pass" && firstPass !== undefined && d.layer === firstPass.layer);
  const ttl = firstPass?.ttlMs ?? null;
  if (p.sameMsgId === false && a === undefined && b === undefined && firstPass !== undefined && secondPass !== undefined && (ttl === null || gapMs <= ttl)) {
    return { defect: "dedup_key_not_business_key", evidence: [evidence("new_msg_id_passed", "defect", [firstPass.eventId, secondPass.eventId], { layer: firstPass.layer })] };
  }

  const executed = first.dedup.find((d) => d.decision === "executed");
  if (executed !== undefined && first.ackTs !== null && first.ackTs < executed.ts - ACK_MARGIN_MS) {
    return { defect: "async_ack", evidence: [evidence("acked_before_effect", "defect", [first.endEventId, executed.eventId], { instance: first.instance, ackTs: first.ackTs, effectTs: executed.ts })] };
  }

  if (firstPass !== undefined && secondPass !== undefined) {
    const firstDoneTs = executed?.ts ?? first.dedup[first.dedup.length - 1]!.ts;
    const racing = Math.abs(gapMs) < 1000 || secondPass.ts < firstDoneTs;
    const racingWithSkew = Math.abs(gapMs) < 1000 + tolerance || secondPass.ts < firstDoneTs + tolerance;
    if (racingWithSkew && (ttl === null || gapMs < ttl)) {
      return {
        defect: "non_atomic_check",
        evidence: [evidence("concurrent_passes", "defect", [firstPass.eventId, secondPass.eventId], { gapMs, firstInstance: first.instance, secondInstance: second.instance, layer: firstPass.layer }, { tolerant: !racing })],
      };
    }
  }

  const layers = new Set([...first.dedup, ...second.dedup].map((d) => d.layer));
  const durable = [...layers].some((l) => DURABLE.has(l));
  // Across hosts the gap is only known within the skew: a pass that close to the TTL is an expired marker.
  if (ttl !== null && firstPass !== undefined && gapMs > ttl - tolerance && !durable) {
    return { defect: "marker_expired", evidence: [evidence("gap_over_ttl", "defect", ids, { gapMs, ttlMs: ttl, layer: firstPass.layer }, { tolerant: gapMs <= ttl })] };
  }
  if (!durable) {
    const found = [evidence("only_volatile_layers", "defect", ids, { layers: [...layers].join(", ") })];
    if (ttl !== null && firstPass !== undefined) found.unshift(evidence("gap_within_ttl", "defect", ids, { gapMs, ttlMs: ttl, layer: firstPass.layer }));
    return { defect: "no_durable_layer", evidence: found };
  }
  return null;
}
