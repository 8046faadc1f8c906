import type { EvidenceValues } from "../../diagnosis/evidence.ts";
import type { AdviceValues } from "../../diagnosis/findings.ts";
import type { MissingCode, MissingData, Verdict } from "../../diagnosis/types.ts";
import type { Cause, DedupLayer, Defect, GapClass, Outcome } from "../../diagnosis/vocabulary.ts";

/**
 * The shape of one language's diagnosis wording (en.ts, zh-CN.ts): a sentence for every evidence, missing-data and
 * advice code, and the names of causes, outcomes, defects and gap classes. The types require every code in every
 * language. Sentences get their times, durations and instance names through `Fmt`, so the formats are the same in
 * all of them (lib/format). Straight double quotes enclose literals, the same in every language (a log line's words,
 * a command), and nothing else: the dashboard sets what they enclose in <code> (components/Literal.tsx).
 */

/** What a sentence formats with: lib/i18n/diagnosis-text.ts builds it from the render options. */
export interface Fmt {
  /** A time of day at the reader's offset (lib/format/time.ts); `coarse` cuts it to the second. */
  t(ts: number, coarse?: boolean): string;
  /** A duration (lib/format/duration.ts); null is "?". */
  d(ms: number | null): string;
  i(instance: string | null): string;
  q(topic: string | null, queue: string | null): string;
  cause(c: string): string;
  /** A dedup layer by its name in the language; a layer the vocabulary does not know (a log's own) as it was logged. */
  layer(l: string): string;
  /** Layers as evidence stores them, joined by ", " (lib/diagnosis/rules/outcome.ts), as one list of names. */
  layers(list: string): string;
}

export type Table<V extends object> = { [K in keyof V]: (v: V[K], f: Fmt) => string };

export interface Language {
  evidence: Table<EvidenceValues>;
  missing: { [K in MissingCode]: (m: MissingData, f: Fmt) => string };
  advice: Table<AdviceValues>;
  cause: Record<Cause, string>;
  outcome: Record<Outcome, string>;
  defect: Record<Defect, string>;
  gapClass: Record<GapClass, string>;
  /** The dedup layers as the sentences name them: the same names as the dashboard's (lib/i18n/ui). */
  layer: Record<DedupLayer, string>;
  /** Names joined into one list: "A, B and C". */
  list: (names: string[]) => string;
  /** Between two clauses of one sentence. */
  separator: string;
  coarse: string;
  tolerant: (skew: string) => string;
  receipt: string;
  /** After a "no client log"/"no broker log" note: skipped lines of those sources looked relevant (the Ingest page). */
  unrecognisedNear: (lines: number, sources: string) => string;
  unknownInstance: string;
  /** That the hosts' clocks disagree, by at least `skew`: said wherever stamps contradict an order that is known. */
  clockNote: (skew: string) => string;
  /** A duplicate's group and topic and its two deliveries by time and instance, in the diagnosis's order. */
  pair: (p: PairView, f: Fmt) => string;
  /** Cause, confidence, outcome and the gap, with the clock note when the clocks put the deliveries the other way round. */
  verdict: (v: Verdict, f: Fmt, names: Language) => string;
}

export interface PairDelivery {
  id: string;
  instance: string | null;
  start: number;
}

export interface PairView {
  group: string | null;
  topic: string | null;
  first: PairDelivery;
  second: PairDelivery;
}

export interface MembershipWords {
  between: string;
  before: (d: string) => string;
  beyond: (interval: string) => string;
}

/** Where a membership change lies against the deliveries, and why one just outside the interval still counts. */
export function membershipWhen(v: { beforeFirstMs: number; intervalMs: number }, f: Fmt, words: MembershipWords): string {
  if (v.beforeFirstMs <= 0) return words.between;
  return words.before(f.d(v.beforeFirstMs)) + (v.beforeFirstMs > v.intervalMs ? words.beyond(f.d(v.intervalMs)) : "");
}

/** RabbitMQ's channel and connection closes: the broker requeues whatever the channel had not acknowledged. */
export const RABBIT_CLOSES: ReadonlySet<string> = new Set(["connection_closed", "channel_closed", "connection_lost", "heartbeat_missed"]);
