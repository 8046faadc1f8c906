import { states } from "../events/facts.ts";
import { canonicalInstance } from "../events/instance.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { hostOf } from "./identity.ts";
import { factsFor, str } from "./sources.ts";

/**
 * A group's members over time, kept apart from the raw lines (docs/diagnosis.md, "Group state over time"). Consumers
 * stay connected for weeks and log their connect once, while raw events are kept for days: diagnosis asks what the
 * group looked like when a key was delivered (its message model, which clientIds were connected twice) and must get
 * the same answer after the connect lines have expired. So each line that opens or closes a membership becomes a
 * MemberChange, the store keeps the changes (prisma/migrations/…_group_members), and foldMembers turns a group's
 * changes into intervals. The fold is pure and order-free: it sorts what it is given, so a close ingested before its
 * connect, or a connect ingested a day late, gives the intervals it would have given in order.
 *
 * A member is one clientId (or the instance a line names) as one side saw it: `via` is the broker that logged the
 * connection, or "" for the member's own log. One member may hold several connections at once (`remote`): that is
 * what two processes sharing a clientId look like to a broker.
 */

export type MemberChangeKind = "open" | "close" | "emptied" | "seen";

export interface MemberChange {
  eventId: string;
  ts: number;
  /** The line's time is to the second (a broker log). */
  coarse: boolean;
  group: string;
  change: MemberChangeKind;
  /** The clientId as logged (`ip@DEFAULT`), or the event's instance; null for `emptied`. */
  member: string | null;
  /** The event's instance (canonical), from which the host comes. */
  instance: string | null;
  via: string;
  /** The connection's `ip:port` as the broker saw it. */
  remote: string | null;
  model: string | null;
  broker: string;
}

/**
 * How an interval ended: the member's own close, a reconnect from another host (moved), a new connection of a
 * clientId that names one process (reconnected), its group emptied on that broker, or, for a member known from its
 * spans, no span of it while the group's were seen (unseen).
 */
export type ClosedBy = "close" | "moved" | "reconnected" | "emptied" | "unseen";

/**
 * A member known from its consumer spans (OpenTelemetry: RocketMQ 5 and Kafka consumers reach dupscope this way,
 * with no connect line at all): the span's resource names the process, the member, and its attributes the group and
 * for RocketMQ the consumption model. Not the clientId: Kafka's default `client.id` is the same in every replica. A
 * span says the process consumed for the group then, not when it connected or left, so its interval runs from its
 * first span to its last: a `seen` change is the first consumer span of a process and group in an hour
 * (SEEN_BUCKET_MS; the store keeps one per hour, so
 * the changes grow with members and hours, not with messages), and an interval ends at its last span once no span
 * of it came for UNSEEN_MS while the group's spans did: the group's membership seen without it. An idle consumer
 * sends no span either; in a group whose members all consume, two hours without one is a member gone.
 */
export const SPANS_VIA = "(spans)";
export const SEEN_BUCKET_MS = 3_600_000;
export const UNSEEN_MS = 2 * SEEN_BUCKET_MS;
const SPANS_FORMAT = "otlp-traces:";

/**
 * The RocketMQ Java client's default clientId since 4.9: `ip@pid#nanoTime` (ClientConfig.changeInstanceNameToPID,
 * for an instanceName left at "DEFAULT"). The nanoTime makes it one client instance of one process, which holds one
 * channel per broker address: a new connection of it through a broker replaces the one before, whose close the
 * broker may not have logged (or that was not ingested). A bare `ip@pid` or a chosen instanceName can be shared
 * (containers on the host network all run as pid 1), so it is not read this way.
 */
const ONE_PROCESS_CLIENT_ID = /@\d+#\d+$/;
/** ONE_PROCESS_CLIENT_ID for PostgreSQL's `~` (the store filters the key's read with it: lib/store/group-members.ts). */
export const ONE_PROCESS_CLIENT_ID_SQL = "@[0-9]+#[0-9]+$";

export interface MemberInterval {
  group: string;
  member: string;
  instance: string | null;
  via: string;
  remote: string | null;
  model: string | null;
  broker: string;
  /** null: the connect was never seen, only the close (it predates what was ingested). */
  since: number | null;
  sinceEvent: string | null;
  sinceCoarse: boolean;
  /** null: still connected as far as any line says. */
  until: number | null;
  untilEvent: string | null;
  closedBy: ClosedBy | null;
  /**
   * Whether the line that began the interval is still stored among the raw events, when the store says (false: gone
   * with their retention, only this interval is left). Undefined: look for it in the key's context.
   */
  sinceRaw?: boolean;
}

/** Whether the interval outlived its first line: what evidence says as "raw line expired". */
export function sinceExpired(i: MemberInterval, context: readonly NormalizedEvent[]): boolean {
  if (i.sinceEvent === null) return false;
  return i.sinceRaw === undefined ? !context.some((e) => e.id === i.sinceEvent) : !i.sinceRaw;
}

const OPENS = factsFor("member_opens");
const CLOSES = factsFor("member_closes");
const EMPTIES = factsFor("group_emptied");

/**
 * Whether a line of this kind and action, keyless and of a named group, may change a membership: what the ingest
 * journal keeps of a batch (its ids) for the fold to read the lines again (lib/store/group-members.ts).
 */
export function changesMembership(kind: string, action: string | null, group: string | null, bizKey: string | null): boolean {
  if (bizKey !== null || group === null || group === "" || action === null) return false;
  const fact = `${kind}/${action}`;
  return OPENS.has(fact) || CLOSES.has(fact) || EMPTIES.has(fact);
}

/**
 * Whether a stored event may be a consumer span that shows its process in a group (memberChangeOf says for sure):
 * what the ingest journal keeps, one per group, process and hour of a batch.
 */
export function seesMember(id: string, kind: string, group: string | null, instance: string | null): boolean {
  return (kind === "consume_start" || kind === "consume_end") && group !== null && group !== "" && instance !== null && id.startsWith(SPANS_FORMAT);
}

function seenChangeOf(e: NormalizedEvent): MemberChange | null {
  // A process named by service.name alone stands for every replica of the service: no member of its own.
  if (!seesMember(e.id, e.kind, e.group, e.instance) || e.detail.instanceFrom === "service.name") return null;
  const instance = canonicalInstance(e.instance!).canonical;
  const model = str(e.detail.messageModel);
  return {
    eventId: e.id,
    ts: e.ts,
    coarse: false,
    group: e.group!,
    change: "seen",
    member: instance,
    instance,
    via: SPANS_VIA,
    remote: null,
    model: model === null ? null : model.toUpperCase(),
    broker: e.broker,
  };
}

/** The membership change a stored event states, if any: only lines of a named group count. */
export function memberChangeOf(e: NormalizedEvent): MemberChange | null {
  if (e.id.startsWith(SPANS_FORMAT)) return seenChangeOf(e);
  if (e.bizKey !== null || e.group === null || e.group === "") return null;
  const change: MemberChangeKind | null = states(e, OPENS) ? "open" : states(e, CLOSES) ? "close" : states(e, EMPTIES) ? "emptied" : null;
  if (change === null) return null;
  const member = str(e.detail.instanceRaw) ?? e.instance;
  if (change !== "emptied" && member === null) return null;
  return {
    eventId: e.id,
    ts: e.ts,
    coarse: e.tsPrecision === "s",
    group: e.group,
    change,
    member: change === "emptied" ? null : member,
    instance: e.instance === null ? null : canonicalInstance(e.instance).canonical,
    via: str(e.detail.brokerInstance) ?? "",
    remote: str(e.detail.remoteAddress),
    model: str(e.detail.messageModel),
    broker: e.broker,
  };
}

/** The changes among `events`, for callers that hold raw lines (the evaluation, a key's context). */
export function memberChangesIn(events: readonly NormalizedEvent[]): MemberChange[] {
  return events.flatMap((e) => memberChangeOf(e) ?? []);
}

/** `ip` of `ip:port` (also `[v6]:port`); a remote without a port is its own host. */
function remoteHost(remote: string): string {
  const bracket = /^\[([^\]]+)\]/.exec(remote);
  if (bracket) return bracket[1]!;
  const colon = remote.lastIndexOf(":");
  return colon > 0 && remote.indexOf(":") === colon ? remote.slice(0, colon) : remote;
}

/** What a change says of the connection itself, whichever end of it the change is. */
function connectionOf(c: MemberChange, member: string) {
  return { group: c.group, member, instance: c.instance, via: c.via, remote: c.remote, model: c.model, broker: c.broker };
}

const byTimeThenId = (a: MemberChange, b: MemberChange) => a.ts - b.ts || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);

/**
 * The intervals `changes` describe, in order of their start (unknown starts first). The rules, in time order:
 * - An open of a member through a broker that already holds an open connection of it from the same remote (or
 *   where either side names no remote) repeats it: the same line ingested twice, or the client's start after its
 *   starting line. A model it names fills the interval's if that had none.
 * - An open from another host closes the member's open connections through that broker (`moved`). From the same
 *   host but another port it is a second connection: both stay open (two processes, or a restart whose close was
 *   not logged; the member's later close ends both).
 * - A close from a broker ends that broker's open connections of the member from its remote (all of them when it
 *   names none); a close from the member's own log (`via` "") ends its connections through every broker. A broker's
 *   close that names the channel's address and no clientId ends the connection from that address, whoever's it was. A close
 *   with nothing open, of a member never seen before, is an interval whose start is unknown; later repeats of a
 *   close (the broker logs channelInactive and then unregister) change nothing.
 * - `emptied` (the broker removed the group, no connection left) ends every open connection through that broker.
 * - `seen` (a consumer span, SPANS_VIA) extends its process's interval of the member, or opens one. Before it, every
 *   interval of the group known from spans whose last span is more than UNSEEN_MS older ends at that span
 *   (`unseen`), and so do those of each group at the end of its changes. A close in the member's own log ends them.
 */
export function foldMembers(changes: readonly MemberChange[]): MemberInterval[] {
  const done: MemberInterval[] = [];
  /** group → member → open intervals */
  const open = new Map<string, Map<string, MemberInterval[]>>();
  const seen = new Set<string>();
  const openOf = (group: string, member: string): MemberInterval[] => {
    let members = open.get(group);
    if (members === undefined) open.set(group, (members = new Map()));
    let list = members.get(member);
    if (list === undefined) members.set(member, (list = []));
    return list;
  };
  /** The latest span of each interval known from spans that is still open, per group, and the latest span of each group. */
  const lastSeen = new Map<string, Map<MemberInterval, MemberChange>>();
  const latestSeen = new Map<string, number>();
  const end = (list: MemberInterval[], which: (i: MemberInterval) => boolean, c: MemberChange, by: ClosedBy): number => {
    let n = 0;
    for (let k = list.length - 1; k >= 0; k--) {
      const i = list[k]!;
      if (!which(i)) continue;
      i.until = c.ts;
      i.untilEvent = c.eventId;
      i.closedBy = by;
      done.push(i);
      list.splice(k, 1);
      lastSeen.get(i.group)?.delete(i);
      n++;
    }
    return n;
  };
  const endUnseen = (group: string, at: number) => {
    for (const [i, last] of lastSeen.get(group) ?? []) {
      if (last.ts >= at - UNSEEN_MS) continue;
      Object.assign(i, { until: last.ts, untilEvent: last.eventId, closedBy: "unseen" });
      done.push(i);
      const list = open.get(group)!.get(i.member)!;
      list.splice(list.indexOf(i), 1);
      lastSeen.get(group)!.delete(i);
    }
  };
  const unique = new Map<string, MemberChange>();
  for (const c of changes) unique.set(c.eventId, c);
  for (const c of [...unique.values()].sort(byTimeThenId)) {
    if (c.change === "seen") {
      endUnseen(c.group, c.ts);
      latestSeen.set(c.group, c.ts);
      const list = openOf(c.group, c.member!);
      let seenIn = lastSeen.get(c.group);
      if (seenIn === undefined) lastSeen.set(c.group, (seenIn = new Map()));
      let interval = list.find((i) => i.via === SPANS_VIA && i.instance === c.instance);
      if (interval === undefined) {
        interval = { ...connectionOf(c, c.member!), since: c.ts, sinceEvent: c.eventId, sinceCoarse: false, until: null, untilEvent: null, closedBy: null };
        list.push(interval);
      } else if (interval.model === null) interval.model = c.model;
      seenIn.set(interval, c);
      continue;
    }
    if (c.change === "emptied") {
      for (const list of open.get(c.group)?.values() ?? []) end(list, (i) => i.via === c.via, c, "emptied");
      continue;
    }
    if (c.change === "close" && c.via !== "" && c.remote !== null && c.member === c.remote) {
      // The broker named the channel only (`SCAN: remove expired channel … channel=ip:port`): it ends whichever
      // member's connection came from that address through it, and with none open it says nothing of a member.
      for (const list of open.get(c.group)?.values() ?? []) end(list, (i) => i.via === c.via && i.remote === c.remote, c, "close");
      continue;
    }
    const member = c.member!;
    const list = openOf(c.group, member);
    const key = `${c.group}\u0000${member}\u0000${c.via}`;
    const sameRemote = (i: MemberInterval) => i.remote === null || c.remote === null || i.remote === c.remote;
    if (c.change === "open") {
      seen.add(key);
      const repeat = list.find((i) => i.via === c.via && sameRemote(i));
      if (repeat !== undefined) {
        if (repeat.model === null) repeat.model = c.model;
        continue;
      }
      end(list, (i) => i.via === c.via && i.remote !== null && c.remote !== null && remoteHost(i.remote) !== remoteHost(c.remote), c, "moved");
      if (c.via !== "" && ONE_PROCESS_CLIENT_ID.test(member)) end(list, (i) => i.via === c.via, c, "reconnected");
      list.push({ ...connectionOf(c, member), since: c.ts, sinceEvent: c.eventId, sinceCoarse: c.coarse, until: null, untilEvent: null, closedBy: null });
      continue;
    }
    const ended = end(list, (i) => (c.via === "" || i.via === c.via) && (c.via === "" || sameRemote(i)), c, "close");
    if (ended === 0 && !seen.has(key)) {
      done.push({ ...connectionOf(c, member), since: null, sinceEvent: null, sinceCoarse: false, until: c.ts, untilEvent: c.eventId, closedBy: "close" });
    }
    seen.add(key);
  }
  for (const [group, at] of latestSeen) endUnseen(group, at);
  for (const members of open.values()) for (const list of members.values()) done.push(...list);
  return done.sort((a, b) => (a.since ?? -Infinity) - (b.since ?? -Infinity) || (a.until ?? Infinity) - (b.until ?? Infinity));
}

/**
 * How far around a key's events its groups' members are read: the rules ask about members from one rebalance
 * interval (and the clock skew) before the first delivery to the last, and a little after for lines logged late.
 */
const MEMBERS_BEFORE_MS = 10 * 60_000;
const MEMBERS_AFTER_MS = 3 * 60_000;

export function membersSpan(keyEvents: readonly NormalizedEvent[]): { from: number; to: number } {
  let from = Infinity;
  let to = -Infinity;
  for (const e of keyEvents) {
    from = Math.min(from, e.ts);
    to = Math.max(to, e.ts);
  }
  return { from: from - MEMBERS_BEFORE_MS, to: to + MEMBERS_AFTER_MS };
}

/** Whether the interval covers [from, to] at some point, each side allowed `slackMs`. */
export function overlaps(i: MemberInterval, from: number, to: number, slackMs = 0): boolean {
  return (i.since === null || i.since <= to + slackMs) && (i.until === null || i.until >= from - slackMs);
}

/** The group's members connected at some point of [from, to]. */
export function membersDuring(intervals: readonly MemberInterval[], group: string, from: number, to: number, slackMs = 0): MemberInterval[] {
  return intervals.filter((i) => i.group === group && overlaps(i, from, to, slackMs));
}

/** The host a member's connection came from: the clientId's host, else its remote address's. */
export function memberHost(i: MemberInterval): string | null {
  if (i.instance !== null) return hostOf(i.instance);
  return i.remote === null ? null : remoteHost(i.remote);
}

/**
 * The group's message model at `at`: the model of the newest interval begun by then that names one (however long
 * ago it began, and whether or not it has ended: consumers log it only when they connect or start).
 */
export function groupModelAt(intervals: readonly MemberInterval[], group: string, at: number): MemberInterval | undefined {
  let newest: MemberInterval | undefined;
  for (const i of intervals) {
    if (i.group !== group || i.model === null || i.since === null || i.since > at) continue;
    if (newest === undefined || i.since > newest.since! || (i.since === newest.since && (i.sinceEvent ?? "") > (newest.sinceEvent ?? ""))) newest = i;
  }
  return newest;
}

/** Whether the connection came from one of these hosts (memberHost). */
export function fromHosts(i: MemberInterval, hosts: readonly string[]): boolean {
  const host = memberHost(i);
  return host !== null && hosts.includes(host);
}

/**
 * Whether a connection is one the key's rules can ask about: a broker's connection of a clientId that several
 * processes can share (not one-process, see ONE_PROCESS_CLIENT_ID), which is what shared_client_id looks for, or one
 * of the key's own processes: a one-process clientId whose `host@pid` consumed it, or a membership in the log of an
 * instance that did. A host running a hundred consumers has a hundred other connections in the group, none of which
 * any rule reads.
 */
export function concernsKey(i: MemberInterval, processes: readonly string[]): boolean {
  if (i.via === "" || i.via === SPANS_VIA) return i.instance !== null && processes.includes(i.instance);
  return !ONE_PROCESS_CLIENT_ID.test(i.member) || processes.includes(i.member.split("#")[0]!);
}

/**
 * What the store reads of the members for a key (lib/store/group-members.ts, MEMBERS): per group of the key, the
 * intervals overlapping its span (membersSpan) of connections from the key's hosts that concern it (concernsKey),
 * the newest one begun by the span's start that names a model and those begun within the span that name one (so
 * groupModelAt answers at any time of the span as over the whole group). The rules ask nothing else (a shared clientId is
 * two processes on the host that consumed), and a group of a hundred consumers on four brokers has four hundred open
 * intervals: reading them all tripled a key lookup. The evaluation selects with it over a whole run's intervals, so
 * what is graded is what the API answers.
 */
export function membersFor(
  intervals: readonly MemberInterval[],
  groups: readonly string[],
  span: { from: number; to: number },
  scope: { hosts: readonly string[]; processes: readonly string[] },
): MemberInterval[] {
  return groups.flatMap((group) => {
    const ofGroup = intervals.filter((i) => i.group === group);
    const overlapping = ofGroup.filter((i) => overlaps(i, span.from, span.to) && fromHosts(i, scope.hosts) && concernsKey(i, scope.processes));
    const before = groupModelAt(ofGroup, group, span.from);
    const models = ofGroup.filter((i) => i === before || (i.model !== null && i.since !== null && i.since > span.from && i.since <= span.to));
    return [...overlapping, ...models.filter((m) => !overlapping.includes(m))];
  });
}

