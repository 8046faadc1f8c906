import type { DedupLayer, Defect } from "../diagnosis/vocabulary.ts";
import type { LayerSpec } from "./topology.ts";

/**
 * A consumer group's dedup stack (Bloom → Redis → DB unique key → state machine, any subset) and the shared state
 * behind it. `check` answers pass or hit layer by layer as the application would, and says *why* a layer passed, so
 * that a duplicate that leaks is labelled with the mechanism that let it through, not with a guess from its logs.
 */

/**
 * Why a layer let a message through:
 * new          the key was never marked (a first delivery)
 * key_mismatch the marker exists, under another dedup key (keyed on msgId, the duplicate has a new one)
 * expired      the marker was set and its TTL ran out
 * lost         the marker store forgot it (Redis restarted without persistence)
 * not_shared   another instance's in-process filter has it, this one's does not
 * released     the marker was deleted after a failure
 * race         GET-then-SET: another attempt passed the GET and has not SET yet, its consume still running
 * async        as race, but the other attempt's consume already returned: the business runs after the ack
 */
export type PassReason = "new" | "key_mismatch" | "expired" | "lost" | "not_shared" | "released" | "race" | "async";

/** The defect a leaked duplicate is labelled with, from the strongest reason any layer passed it for. */
const DEFECT_OF: Record<Exclude<PassReason, "new">, Defect> = {
  key_mismatch: "dedup_key_not_business_key",
  race: "non_atomic_check",
  async: "async_ack",
  expired: "marker_expired",
  lost: "no_durable_layer",
  not_shared: "no_durable_layer",
  released: "no_durable_layer",
};

const REASON_STRENGTH: readonly PassReason[] = ["key_mismatch", "race", "async", "expired", "lost", "not_shared", "released", "new"];

export function defectOf(reason: PassReason): Defect {
  return reason === "new" ? "no_durable_layer" : DEFECT_OF[reason];
}

export interface AttemptKey {
  id: number;
  instance: string;
  bizKey: string;
  msgId: string;
}

export interface LayerLine {
  at: number;
  layer: DedupLayer;
  decision: "pass" | "hit" | "released";
  dedupKey: string;
  ttlMs?: number;
}

export interface CheckResult {
  lines: LayerLine[];
  /** The layer that recognised the key; the message is skipped. */
  hitBy?: DedupLayer;
  /** Why the message got through (strongest reason over the layers that passed it). */
  reason: PassReason;
  /** When the last layer answered. */
  doneAt: number;
}

/** Whether the attempt with this id has already returned from its consume call. */
export type ReturnedProbe = (attemptId: number) => boolean;

interface Marker {
  expiresAt: number;
  by: number;
}

interface Row {
  by: number;
  committed: boolean;
}

interface BloomState {
  kind: "bloom";
  spec: Extract<LayerSpec, { layer: "bloom" }>;
  shared: Set<string>;
  local: Map<string, Set<string>>;
}

interface RedisState {
  kind: "redis";
  spec: Extract<LayerSpec, { layer: "redis" }>;
  markers: Map<string, Marker>;
  /** GET-then-SET: keys an attempt passed and will SET once its side effect commits. */
  pending: Map<string, number>;
  keysOfBizKey: Map<string, Set<string>>;
  released: Set<string>;
  lost: Set<string>;
}

interface RowState {
  kind: "row";
  spec: Extract<LayerSpec, { layer: "db" | "state" }>;
  rows: Map<string, Row>;
}

type LayerState = BloomState | RedisState | RowState;

type Answer = { decision: "pass"; reason: PassReason; ttlMs?: number } | { decision: "hit" } | { decision: "silent" };

function strongest(reasons: readonly PassReason[]): PassReason {
  for (const reason of REASON_STRENGTH) if (reasons.includes(reason)) return reason;
  return "new";
}

export class DedupStack {
  private readonly layers: LayerState[];

  constructor(
    specs: readonly LayerSpec[],
    private readonly markerPrefix: string,
  ) {
    this.layers = specs.map((spec): LayerState => {
      switch (spec.layer) {
        case "bloom":
          return { kind: "bloom", spec, shared: new Set(), local: new Map() };
        case "redis":
          return { kind: "redis", spec, markers: new Map(), pending: new Map(), keysOfBizKey: new Map(), released: new Set(), lost: new Set() };
        case "db":
        case "state":
          return { kind: "row", spec, rows: new Map() };
      }
    });
  }

  /** The layer `executed` and `failed` lines name: the one written with the side effect, the last of the stack. */
  effectLayer(): DedupLayer | "none" {
    return this.layers[this.layers.length - 1]?.spec.layer ?? "none";
  }

  private dedupKey(layer: LayerState, a: AttemptKey): string {
    switch (layer.kind) {
      case "bloom":
        return `${this.markerPrefix}:${a.bizKey}`;
      case "redis":
        return `${this.markerPrefix}:${layer.spec.keyOn === "msgId" ? a.msgId : a.bizKey}`;
      case "row":
        return layer.spec.layer === "db" ? `${this.markerPrefix}_dedup.uk_biz_key:${a.bizKey}` : `${this.markerPrefix}:${a.bizKey}`;
    }
  }

  /** Each layer answers 1 ms after the previous one; the first answers 1 ms after `at`. */
  check(a: AttemptKey, at: number, returned: ReturnedProbe): CheckResult {
    const lines: LayerLine[] = [];
    const reasons: PassReason[] = [];
    let t = at;
    for (const layer of this.layers) {
      t += 1;
      const dedupKey = this.dedupKey(layer, a);
      const answer = this.answer(layer, a, dedupKey, t, returned);
      if (answer.decision === "silent") continue;
      if (answer.decision === "hit") {
        lines.push({ at: t, layer: layer.spec.layer, decision: "hit", dedupKey });
        this.abandon(a);
        return { lines, hitBy: layer.spec.layer, reason: strongest(reasons), doneAt: t };
      }
      reasons.push(answer.reason);
      lines.push({ at: t, layer: layer.spec.layer, decision: "pass", dedupKey, ...(answer.ttlMs === undefined ? {} : { ttlMs: answer.ttlMs }) });
    }
    return { lines, reason: strongest(reasons), doneAt: t };
  }

  /** A skipped message never reaches the SET of a GET-then-SET layer it passed. */
  private abandon(a: AttemptKey): void {
    for (const layer of this.layers) {
      if (layer.kind !== "redis") continue;
      const key = this.dedupKey(layer, a);
      if (layer.pending.get(key) === a.id) layer.pending.delete(key);
    }
  }

  private answer(layer: LayerState, a: AttemptKey, key: string, at: number, returned: ReturnedProbe): Answer {
    switch (layer.kind) {
      case "bloom":
        return this.answerBloom(layer, a, key);
      case "redis":
        return this.answerRedis(layer, a, key, at, returned);
      case "row":
        return this.answerRow(layer, a);
    }
  }

  /** A Bloom filter has no false positives here: "maybe seen" means seen. An advisory filter stays silent then. */
  private answerBloom(layer: BloomState, a: AttemptKey, key: string): Answer {
    const local = layer.spec.scope === "local";
    let filter = local ? layer.local.get(a.instance) : layer.shared;
    if (!filter) {
      filter = new Set();
      layer.local.set(a.instance, filter);
    }
    if (filter.has(key)) return layer.spec.skipOnPositive ? { decision: "hit" } : { decision: "silent" };
    filter.add(key);
    const elsewhere = local && [...layer.local.values()].some((other) => other !== filter && other.has(key));
    return { decision: "pass", reason: elsewhere ? "not_shared" : "new" };
  }

  private answerRedis(layer: RedisState, a: AttemptKey, key: string, at: number, returned: ReturnedProbe): Answer {
    const marker = layer.markers.get(key);
    if (marker && marker.expiresAt > at) return { decision: "hit" };
    const reason = this.redisPassReason(layer, a, key, marker, returned);
    if (layer.spec.atomic) this.setMarker(layer, a, key, at);
    else layer.pending.set(key, a.id);
    return { decision: "pass", reason, ttlMs: layer.spec.ttlMs };
  }

  private redisPassReason(layer: RedisState, a: AttemptKey, key: string, expired: Marker | undefined, returned: ReturnedProbe): PassReason {
    const racing = layer.pending.get(key);
    if (racing !== undefined && racing !== a.id) return returned(racing) ? "async" : "race";
    if (expired) return "expired";
    if (layer.lost.has(key)) return "lost";
    const others = [...(layer.keysOfBizKey.get(a.bizKey) ?? [])].filter((k) => k !== key);
    if (others.length > 0) return "key_mismatch";
    return layer.released.has(key) ? "released" : "new";
  }

  private setMarker(layer: RedisState, a: AttemptKey, key: string, at: number): void {
    layer.markers.set(key, { expiresAt: at + layer.spec.ttlMs, by: a.id });
    layer.pending.delete(key);
    const keys = layer.keysOfBizKey.get(a.bizKey) ?? new Set<string>();
    keys.add(key);
    layer.keysOfBizKey.set(a.bizKey, keys);
  }

  /** A unique row or state transition written inside the business transaction: seen once another attempt wrote it. */
  private answerRow(layer: RowState, a: AttemptKey): Answer {
    const row = layer.rows.get(a.bizKey);
    if (row && row.by !== a.id) return { decision: "hit" };
    layer.rows.set(a.bizKey, { by: a.id, committed: false });
    return { decision: "pass", reason: "new" };
  }

  /** The side effect committed: rows become permanent, GET-then-SET markers are written now. */
  commit(a: AttemptKey, at: number): void {
    for (const layer of this.layers) {
      if (layer.kind === "redis") {
        const key = this.dedupKey(layer, a);
        if (layer.pending.get(key) === a.id) this.setMarker(layer, a, key, at);
      } else if (layer.kind === "row") {
        const row = layer.rows.get(a.bizKey);
        if (row?.by === a.id) row.committed = true;
      }
    }
  }

  /**
   * The attempt failed. A clean failure rolls its rows back; after a side effect they stay. Redis markers are
   * deleted where the application releases them (one `released` line each, 1 ms apart from `at`).
   */
  fail(a: AttemptKey, at: number, afterEffect: boolean): LayerLine[] {
    if (afterEffect) this.commit(a, at);
    const lines: LayerLine[] = [];
    for (const layer of this.layers) {
      if (layer.kind === "row") {
        if (!afterEffect && layer.rows.get(a.bizKey)?.by === a.id) layer.rows.delete(a.bizKey);
      } else if (layer.kind === "redis") {
        const line = this.release(layer, a, at + lines.length + 1);
        if (line) lines.push(line);
      }
    }
    return lines;
  }

  private release(layer: RedisState, a: AttemptKey, at: number): LayerLine | undefined {
    const key = this.dedupKey(layer, a);
    if (layer.pending.get(key) === a.id) layer.pending.delete(key);
    if (!layer.spec.releaseOnFailure || layer.markers.get(key)?.by !== a.id) return undefined;
    layer.markers.delete(key);
    layer.released.add(key);
    return { at, layer: "redis", decision: "released", dedupKey: key };
  }

  /** Redis restarted without persistence: every marker is gone. */
  forgetVolatile(): void {
    for (const layer of this.layers) {
      if (layer.kind !== "redis") continue;
      for (const key of layer.markers.keys()) layer.lost.add(key);
      layer.markers.clear();
    }
  }
}
