import { canonicalInstance, sameProcess } from "../events/instance.ts";

/**
 * How two instance names relate. Sources name one process differently (a trace's bare host, a client log's
 * `ip@pid`, whatever the application writes in its dedup log), so besides "same" and "different" there is
 * "incomparable": a pod name against an IP says nothing either way, and matching must fall back on time.
 */
export type InstanceRelation = "same" | "different" | "incomparable";

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Answers already worked out, per pair of names. The rules and the missing-data notes ask it of every context line
 * of every pair of deliveries against the same two or three names: for a duplicate inside a busy group's context
 * (370 lines) that was a fifth of diagnoseKey's time. Cleared when full, as canonicalInstance's answers are.
 */
const relations = new Map<string, Map<string, InstanceRelation>>();
let relationsSize = 0;
const RELATIONS_MAX = 50_000;

export function instanceRelation(a: string | null, b: string | null): InstanceRelation {
  if (a === null || b === null) return "incomparable";
  let row = relations.get(a);
  const known = row?.get(b);
  if (known !== undefined) return known;
  const relation = relate(a, b);
  if (relationsSize >= RELATIONS_MAX) {
    relations.clear();
    relationsSize = 0;
    row = undefined;
  }
  if (row === undefined) relations.set(a, (row = new Map()));
  row.set(b, relation);
  relationsSize++;
  return relation;
}

function relate(a: string, b: string): InstanceRelation {
  if (sameProcess(a, b)) return "same";
  const x = canonicalInstance(a).host;
  const y = canonicalInstance(b).host;
  return IPV4.test(x) === IPV4.test(y) ? "different" : "incomparable";
}

export function hostOf(instance: string): string {
  return canonicalInstance(instance).host;
}

export function hasProcess(instance: string): boolean {
  return canonicalInstance(instance).process !== undefined;
}

/** The most specific of several names for one process: `ip@pid` over a bare IP over any other name. */
export function mostSpecific(names: readonly (string | null)[]): string | null {
  const known = names.filter((n): n is string => n !== null);
  const rank = (n: string) => (hasProcess(n) ? (IPV4.test(hostOf(n)) ? 0 : 1) : IPV4.test(n) ? 2 : 3);
  return [...known].sort((a, b) => rank(a) - rank(b))[0] ?? null;
}
