import { diagnoseKey } from "../diagnosis/diagnose.ts";
import { summarizeFindings, type GroupFindings } from "../diagnosis/findings.ts";
import { describeAdvice, describeEvidence, describeMissing, describePair, describeVerdict, type RenderOptions, type TextEvidence } from "../i18n/diagnosis-text.ts";
import { orderPair } from "../diagnosis/clock-order.ts";
import type { Delivery, KeyDiagnosis, LostMessage, MissingData, NormalRetry, Verdict } from "../diagnosis/types.ts";
import type { NormalizedEvent } from "../events/model.ts";
import type { SqlDriver } from "../store/driver.ts";
import { unrecognisedNear } from "../store/unrecognised.ts";
import { contextRows } from "./context-rows.ts";
import { foldMembers, fromHosts, memberChangesIn, type MemberInterval } from "../diagnosis/members.ts";
import { contextScope } from "../diagnosis/scope.ts";
import { membersAt, type MemberLane } from "../groups/member-lanes.ts";
import { loadDiagnosisInputs } from "../queries/diagnosis-input.ts";
import { rawEventsFrom, storedKeyDiagnosis } from "../queries/retention.ts";
import { asLocale, type Locale } from "../i18n/locale.ts";
import { readableChannels } from "../timeline/amqp-names.ts";

/**
 * What GET /api/v1/keys/{bizKey} and `dupscope diagnose` answer: the key's events, the context diagnosis read,
 * and the diagnosis itself, with every verdict, evidence, missing-data note and advice also worded for a human
 * (in the requested language) next to the data it came from.
 */

export type { TextEvidence };

export interface KeyReport {
  bizKey: string;
  events: NormalizedEvent[];
  /** The context events listed: all that diagnosis read, or those limitContext kept. */
  context: readonly NormalizedEvent[];
  /** How many context events diagnosis read. */
  contextTotal: number;
  /** The store cut a window's context at CONTEXT_ROW_LIMIT rows. */
  contextTruncated: boolean;
  deliveries: Delivery[];
  /** `pair` names the duplicate's group, topic and two deliveries by time and instance; `summary` its verdict. */
  duplicates: (Omit<Verdict, "evidence"> & { pair: string; summary: string; evidence: TextEvidence[] })[];
  lost: (Omit<LostMessage, "evidence"> & { evidence: TextEvidence[] })[];
  normalRetries: NormalRetry[];
  missing: (MissingData & { text: string; unrecognised?: { lines: number; sources: string[] } })[];
  findings: (GroupFindings & { adviceText: string[] })[];
  /** The findings' advice, each distinct sentence once, with the groups it was given for. */
  advice: DistinctAdvice[];
  /**
   * Set when the key's raw events (some or all) are older than the oldest day still stored: the retention job
   * dropped them, so the report is the diagnosis the worker stored while they existed, not one made now.
   */
  expired?: { rawEventsFrom: string | null; diagnosedAt: string; firstTs: number };
  /** Who was in the delivery's group when each delivery began, from the groups' members over time. */
  membership: DeliveryMembers[];
}

export interface DistinctAdvice {
  text: string;
  groups: (string | null)[];
}

export interface DeliveryMembers {
  delivery: string;
  group: string;
  at: number;
  members: MemberLane[];
}

/** How far either side of a delivery's start a connection still counts as open then: the clocks' disagreement. */
const MEMBERSHIP_SLACK_MS = 3000;

/** The members connected from the hosts that consumed the key (the store reads no others, but the group's model). */
function membershipOf(deliveries: readonly Delivery[], members: readonly MemberInterval[], events: readonly NormalizedEvent[]): DeliveryMembers[] {
  const hosts = contextScope(events)?.hosts ?? [];
  const onHosts = members.filter((i) => fromHosts(i, hosts));
  return deliveries.flatMap((d) => (d.group === null ? [] : [{ delivery: d.id, group: d.group, at: d.start, members: membersAt(onHosts, d.group, d.start, MEMBERSHIP_SLACK_MS) }]));
}

export function localeFrom(value: string | null | undefined): Locale {
  return asLocale(value) ?? "en";
}

export function renderReport(
  bizKey: string,
  events: NormalizedEvent[],
  context: readonly NormalizedEvent[],
  contextTruncated: boolean,
  diagnosis: KeyDiagnosis,
  options: RenderOptions,
  members: readonly MemberInterval[] = foldMembers(memberChangesIn(context)),
): KeyReport {
  // The texts name channels as the lanes do; the data beside them keeps the identities.
  const o: RenderOptions = { instanceNames: readableChannels([...events, ...context]), ...options };
  const withText = (evidence: Verdict["evidence"]) => evidence.map((e) => ({ ...e, text: describeEvidence(e, o) }));
  const findings = summarizeFindings({ diagnoses: [diagnosis], delivered: [] }).map((f) => ({ ...f, adviceText: f.advice.map((a) => describeAdvice(a, o)) }));
  return {
    bizKey,
    events,
    context,
    contextTotal: context.length,
    contextTruncated,
    deliveries: diagnosis.deliveries,
    duplicates: diagnosis.duplicates.map((stored) => {
      const { v, first, second } = ordered(stored, diagnosis.deliveries);
      return { ...v, pair: describePair(v, first, second, o), summary: describeVerdict(v, o), evidence: withText(v.evidence) };
    }),
    lost: diagnosis.lost.map((l) => ({ ...l, evidence: withText(l.evidence) })),
    normalRetries: diagnosis.normalRetries,
    missing: diagnosis.missing.map((m) => ({ ...m, text: describeMissing(m, o) })),
    findings,
    advice: distinctAdvice(findings),
    membership: membershipOf(diagnosis.deliveries, members, events),
  };
}

/**
 * A verdict with its two deliveries in the diagnosis's order and its gap measured from them (clock-order.ts): a
 * diagnosis stored before verdicts kept the gap never negative still has a signed one and no clock skew.
 */
function ordered(v: Verdict, deliveries: readonly Delivery[]): { v: Verdict; first: Delivery; second: Delivery } {
  const [a, b] = v.deliveries.map((id) => deliveries.find((d) => d.id === id)!);
  const { first, second, gapMs, clockSkewMs } = orderPair(a!, b!);
  return { v: { ...v, gapMs, clockSkewMs }, first, second };
}

/** Advice a key's groups share reads once: per distinct sentence, the groups it was given for, in order of first mention. */
export function distinctAdvice(findings: readonly { group: string | null; adviceText: readonly string[] }[]): DistinctAdvice[] {
  const byText = new Map<string, DistinctAdvice>();
  for (const f of findings) {
    for (const text of f.adviceText) {
      const seen = byText.get(text);
      if (seen === undefined) byText.set(text, { text, groups: [f.group] });
      else if (!seen.groups.includes(f.group)) seen.groups.push(f.group);
    }
  }
  return [...byText.values()];
}

/** The ids of the events the verdicts' and lost messages' evidence cites. */
export function citedEventIds(report: Pick<KeyReport, "duplicates" | "lost">): Set<string> {
  return new Set([...report.duplicates, ...report.lost].flatMap((v) => v.evidence.flatMap((e) => e.eventIds)));
}

/** The report listing at most `limit` context events: every one the evidence cites, then the nearest in time. */
export function limitContext(report: KeyReport, limit: number): KeyReport {
  return { ...report, context: contextRows(report.context, report.events, citedEventIds(report), limit).shown };
}

/**
 * Diagnosis on read: the key's stored events through the same selection and engine as the worker. When the
 * retention job has dropped some of them, diagnosing what remains would tell half a story; the stored diagnosis
 * is shown instead, marked as such.
 */
export async function keyReport(driver: SqlDriver, bizKey: string, o: RenderOptions = {}): Promise<KeyReport | undefined> {
  const [[input], stored] = await Promise.all([loadDiagnosisInputs(driver, [bizKey]), storedKeyDiagnosis(driver, bizKey)]);
  // The key's first event still read means no partition it was in has been dropped; only otherwise is the oldest
  // partition worth asking for (a catalog read of every partition, ~1 ms of the database's time per lookup).
  const firstKept = input !== undefined && stored !== undefined && input.events.some((e) => e.ts <= stored.firstTs);
  const from = stored && !firstKept ? await rawEventsFrom(driver) : null;
  if (stored && !firstKept && (from === null || stored.firstTs < from)) {
    const diagnosis = stored.diagnosis ?? { bizKey, deliveries: [], duplicates: [], normalRetries: [], lost: [], missing: [], groups: [] };
    const report = renderReport(bizKey, input?.events ?? [], input?.context ?? [], input?.contextTruncated ?? false, diagnosis, o, input?.members ?? []);
    return withUnrecognised(driver, { ...report, expired: { rawEventsFrom: from === null ? null : new Date(from).toISOString(), diagnosedAt: stored.diagnosedAt, firstTs: stored.firstTs } }, o);
  }
  if (!input) return undefined;
  return withUnrecognised(driver, renderReport(bizKey, input.events, input.context, input.contextTruncated, diagnoseKey(input), o, input.members), o);
}

/** The notes that say a source was missing, and why one was not read: its relevant lines were skipped. */
const LOG_GAPS: ReadonlySet<MissingData["code"]> = new Set(["no_client_log", "no_broker_log", "no_event_exchange"]);

/**
 * A "no client log" or "no broker log" note while skipped-but-relevant lines exist for its group or instance says so:
 * the log was there, its wording was not read (the Ingest page lists them; a patterns file can read them).
 */
async function withUnrecognised(driver: SqlDriver, report: KeyReport, o: RenderOptions): Promise<KeyReport> {
  const gaps = report.missing.filter((m) => LOG_GAPS.has(m.code));
  if (gaps.length === 0) return report;
  const groups = [...new Set(gaps.flatMap((m) => (m.group ? [m.group] : [])))];
  const instances = [...new Set(gaps.flatMap((m) => (m.instance ? [m.instance] : [])))];
  const near = await unrecognisedNear(driver, groups, instances);
  if (near.length === 0) return report;
  const missing = report.missing.map((m) => {
    if (!LOG_GAPS.has(m.code)) return m;
    const mine = near.filter((s) => (m.group != null && s.groups.includes(m.group)) || (m.instance != null && s.instance === m.instance));
    if (mine.length === 0) return m;
    const unrecognised = { lines: mine.reduce((n, s) => n + s.lines, 0), sources: mine.map((s) => s.source) };
    return { ...m, unrecognised, text: describeMissing(m, o, unrecognised) };
  });
  return { ...report, missing };
}
