import type { NormalizedEvent } from "../events/model.ts";
import { selectKeyEvents } from "./deliveries.ts";
import { CONTEXT_KINDS } from "./scope.ts";
import { isUntiedSend, tieSendsToRecords } from "./span-links.ts";
import type { DiagnosisInput } from "./types.ts";

/**
 * What diagnosis reads of a key's pool (its events, then its context, each id once): the key's own events among it,
 * the context-kind lines, which msgIds were published, and the whole pool for the few questions asked per message.
 */
export interface KeyPool {
  keyEvents: NormalizedEvent[];
  /** The pool's context-kind events, in pool order. Shared between keys: do not modify. */
  context: readonly NormalizedEvent[];
  /** Whether the pool holds a publish of this msgId. */
  published(msgId: string): boolean;
  /** The whole pool, built on first use. */
  all(): readonly NormalizedEvent[];
}

/**
 * What every key sharing a context list would compute from it alike; its length tells a list grown since. The store
 * hands every key of a batch that reads the same stretch one shared list (batch-context.ts), and each key's pool is
 * that list after a handful of its own events: walking the whole pool for every key (to pick out the key's events,
 * tie sends, find publishes) cost a quarter of a diagnosis, for keys that are nearly all alike.
 */
interface SharedContext {
  ids: ReadonlySet<string>;
  /** Each id once. */
  unique: boolean;
  length: number;
  contextKinds: readonly NormalizedEvent[];
  /** Positions of lines filed under each key. */
  filed: ReadonlyMap<string, readonly number[]>;
  /** Positions of keyless lines, by their msgId and by each key their detail.keys lists (selectKeyEvents). */
  keylessByMsgId: ReadonlyMap<string, readonly number[]>;
  keylessByListedKey: ReadonlyMap<string, readonly number[]>;
  published: ReadonlySet<string | null>;
  /** A send span without a record: tieSendsToRecords may change the pool, so no key reads the list alone. */
  untiedSends: boolean;
}
const sharedContexts = new WeakMap<readonly NormalizedEvent[], SharedContext>();

const isContextKind = (e: NormalizedEvent) => CONTEXT_KINDS.has(e.kind);

export function keyPool(input: DiagnosisInput): KeyPool {
  const shared = sharedOf(input.context);
  const events = uniqueById(input.events);
  const known = shared.ids;
  if (!shared.unique || shared.untiedSends || events.some((e) => known.has(e.id) || isUntiedSend(e))) return wholePool(input);
  const context = input.context;
  const own = events.filter(isContextKind);
  let pool: NormalizedEvent[] | undefined;
  return {
    keyEvents: selectFromShared(input.bizKey, events, context, shared),
    // A key with no context-kind events of its own (nearly every key) reads the shared list itself, so what the rules
    // work out from a context list once (context-index.ts) serves every key of the batch.
    context: own.length === 0 ? shared.contextKinds : own.concat(shared.contextKinds),
    published: (msgId) => shared.published.has(msgId) || events.some((e) => e.kind === "publish" && e.msgId === msgId),
    all: () => (pool ??= events.concat(context)),
  };
}

/** The pool walked whole, as it is defined: what keyPool's shortcut must answer alike (tests/unit/diagnosis/pool.test.ts). */
export function wholePool(input: DiagnosisInput): KeyPool {
  const pool = tieSendsToRecords(uniqueById([...input.events, ...input.context]));
  const published = new Set(pool.filter((e) => e.kind === "publish").map((e) => e.msgId));
  return {
    keyEvents: selectKeyEvents(input.bizKey, pool),
    context: pool.filter(isContextKind),
    published: (msgId) => published.has(msgId),
    all: () => pool,
  };
}

function sharedOf(context: readonly NormalizedEvent[]): SharedContext {
  const known = sharedContexts.get(context);
  if (known !== undefined && known.length === context.length) return known;
  const ids = new Set<string>();
  const filed = new Map<string, number[]>();
  const keylessByMsgId = new Map<string, number[]>();
  const keylessByListedKey = new Map<string, number[]>();
  const published = new Set<string | null>();
  const contextKinds: NormalizedEvent[] = [];
  let untiedSends = false;
  context.forEach((e, i) => {
    ids.add(e.id);
    if (isContextKind(e)) contextKinds.push(e);
    if (e.kind === "publish") published.add(e.msgId);
    if (isUntiedSend(e)) untiedSends = true;
    if (e.bizKey !== null) return push(filed, e.bizKey, i);
    if (e.msgId !== null) push(keylessByMsgId, e.msgId, i);
    const keys = e.detail.keys;
    if (Array.isArray(keys)) for (const key of new Set(keys)) if (typeof key === "string") push(keylessByListedKey, key, i);
  });
  const shared: SharedContext = { ids, unique: ids.size === context.length, length: context.length, contextKinds, filed, keylessByMsgId, keylessByListedKey, published, untiedSends };
  sharedContexts.set(context, shared);
  return shared;
}

/** selectKeyEvents(bizKey, events.concat(context)), the context's part found through the shared indexes. */
function selectFromShared(bizKey: string, events: readonly NormalizedEvent[], context: readonly NormalizedEvent[], shared: SharedContext): NormalizedEvent[] {
  const filed = shared.filed.get(bizKey) ?? [];
  const msgIds = new Set<string>();
  for (const e of events) if (e.bizKey === bizKey && e.msgId !== null) msgIds.add(e.msgId);
  for (const i of filed) {
    const msgId = context[i]!.msgId;
    if (msgId !== null) msgIds.add(msgId);
  }
  const selected = selectKeyEvents(bizKey, events, msgIds);
  const positions = new Set(filed);
  for (const msgId of msgIds) for (const i of shared.keylessByMsgId.get(msgId) ?? []) positions.add(i);
  for (const i of shared.keylessByListedKey.get(bizKey) ?? []) positions.add(i);
  if (positions.size === 0) return selected;
  for (const i of [...positions].sort((a, b) => a - b)) selected.push(context[i]!);
  return selected;
}

function uniqueById(events: readonly NormalizedEvent[]): NormalizedEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => !seen.has(e.id) && (seen.add(e.id), true));
}

function push(map: Map<string, number[]>, key: string, i: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [i]);
  else list.push(i);
}
