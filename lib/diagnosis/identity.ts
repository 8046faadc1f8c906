import { canonicalInstance, sameProcess } from "../events/instance.ts";

/**
 * How two instance names relate. Sources name one process differently (a trace's bare host, a client log's
 * `ip@pid`, whatever the application writes in its dedup log), so besides "same" and "different" there is
 * "incomparable": a pod name against an IP says nothing either way, and matching must fall back on time.
 */
export type InstanceRelation = "same" | "different" | "incomparable";

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

export function instanceRelation(a: string | null, b: string | null): InstanceRelation {
  if (a === null || b === null) return "incomparable";
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
