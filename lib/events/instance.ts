/**
 * One consumer process is named differently by each source: a trace's bornHost is `ip:port` with the trace
 * producer's ephemeral port, a client log's clientId is `ip@instanceName[@unitName]` where instanceName is often
 * `pid#nanotime`, and dedup logs carry whatever the application writes. The canonical instance keeps what
 * identifies the process and drops what changes per connection or per start-up nanosecond:
 *
 *   10.0.0.5:53211            → 10.0.0.5           (port is ephemeral: host only)
 *   10.0.0.5@12345#981237123  → 10.0.0.5@12345     (ip@pid)
 *   10.0.0.5@12345            → 10.0.0.5@12345
 *   10.0.0.5@DEFAULT@unitA    → 10.0.0.5@DEFAULT
 *   anything else             → as written, trimmed
 *
 * `sameProcess` lets correlation match a host-only identity against an ip@pid one without merging two processes
 * that share a host (two ip@pid identities with different pids stay apart).
 */

export interface InstanceIdentity {
  canonical: string;
  host: string;
  /** pid or instanceName, when the source knows it. */
  process?: string;
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Answers already worked out. Diagnosis asks about the same few dozen names once per context event of every pair of
 * deliveries: for a key inside a storm of failures (1,200 context events, 120 deliveries) that was over half of
 * diagnoseKey's time. Cleared when full, so a stream of distinct names cannot grow it without bound.
 */
const known = new Map<string, Readonly<InstanceIdentity>>();
const KNOWN_MAX = 10_000;

export function canonicalInstance(raw: string): Readonly<InstanceIdentity> {
  const hit = known.get(raw);
  if (hit !== undefined) return hit;
  const identity = Object.freeze(identify(raw));
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(raw, identity);
  return identity;
}

function identify(raw: string): InstanceIdentity {
  const value = raw.trim();
  const at = value.indexOf("@");
  if (at > 0) {
    const host = value.slice(0, at);
    const instanceName = value.slice(at + 1).split("@")[0]!;
    const processId = instanceName.split("#")[0]!;
    if (processId !== "") return { canonical: `${host}@${processId}`, host, process: processId };
    return { canonical: host, host };
  }
  const hostPort = /^(.+):(\d{1,5})$/.exec(value);
  if (hostPort && (IPV4.test(hostPort[1]!) || !hostPort[1]!.includes(":"))) {
    return { canonical: hostPort[1]!, host: hostPort[1]! };
  }
  return { canonical: value, host: value };
}

/** True when two canonical instances can be the same process (same host, and no conflicting pids). */
export function sameProcess(a: string, b: string): boolean {
  const x = canonicalInstance(a);
  const y = canonicalInstance(b);
  if (x.host !== y.host) return false;
  return x.process === undefined || y.process === undefined || x.process === y.process;
}
