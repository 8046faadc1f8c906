import type { Evidence, EvidenceCode } from "../diagnosis/evidence.ts";
import type { Advice, AdviceCode } from "../diagnosis/findings.ts";
import { clockOrder } from "../diagnosis/clock-order.ts";
import type { MissingData, Verdict } from "../diagnosis/types.ts";
import type { Cause, DedupLayer, Defect, GapClass, Outcome } from "../diagnosis/vocabulary.ts";
import { formatDuration } from "../format/duration.ts";
import { formatTime } from "../format/time.ts";
import { en } from "./diagnosis/en.ts";
import type { Fmt, Language, PairDelivery } from "./diagnosis/language.ts";
import { zhCN } from "./diagnosis/zh-CN.ts";
import type { Locale } from "./locale.ts";

/**
 * Every sentence diagnosis shows a human, in English and Simplified Chinese (many RocketMQ users read Chinese
 * first). lib/diagnosis produces codes and values and no words; this module alone turns them into words, with the
 * sentences of each language in lib/i18n/diagnosis/ (en.ts, zh-CN.ts), so wording changes touch nothing else and
 * both languages stay in step (the types require every code in both). Times and durations are written by
 * lib/format, as everywhere else.
 */

export interface RenderOptions {
  locale?: Locale;
  /** Offset of the times shown, in minutes east of UTC (480 for GMT+8). Default 0 (UTC). */
  utcOffsetMinutes?: number;
  /** The clock tolerance diagnosis used, quoted when a fact rests on it. */
  clockSkewMs?: number;
  /** Names to show for instances instead of their identity (RabbitMQ channels of a named connection). */
  instanceNames?: ReadonlyMap<string, string>;
}

/** An evidence as the API and the pages carry it: the data, and the sentence that words it. */
export type TextEvidence = Evidence & { text: string };

const LANGUAGES: Record<Locale, Language> = { en, "zh-CN": zhCN };

function formatter(locale: Locale, lang: Language, o: RenderOptions): Fmt {
  const utcOffsetMinutes = o.utcOffsetMinutes ?? 0;
  return {
    t: (ts, coarse) => formatTime(ts, { utcOffsetMinutes, precision: coarse ? "s" : "ms", date: "none" }),
    d: (ms) => formatDuration(ms, locale),
    i: (instance) => (instance === null ? lang.unknownInstance : (o.instanceNames?.get(instance) ?? instance)),
    q: (topic, queue) => (topic === null ? (queue ?? "?") : `${topic}@${queue ?? "?"}`),
    cause: (c) => lang.cause[c as Cause] ?? c,
    layer: (l) => lang.layer[l as DedupLayer] ?? l,
    layers: (list) => lang.list(list.split(", ").map((l) => lang.layer[l as DedupLayer] ?? l)),
  };
}

function setup(o: RenderOptions): { lang: Language; f: Fmt } {
  const locale = o.locale ?? "en";
  const lang = LANGUAGES[locale];
  return { lang, f: formatter(locale, lang, o) };
}

export function describeEvidence(e: Evidence, o: RenderOptions = {}): string {
  const { lang, f } = setup(o);
  // Second-precision times are shown without a fraction they never had.
  const fmt: Fmt = e.coarse ? { ...f, t: (ts) => f.t(ts, true) } : f;
  const render = lang.evidence[e.code as EvidenceCode] as (v: Evidence["values"], f: Fmt) => string;
  // A gap is measured from the pair's earlier event to its later one; stamped the other way round, it is shown as its
  // size and the clocks' disagreement is said.
  const values: Record<string, unknown> = e.values;
  const timing = typeof values.gapMs === "number" ? clockOrder(0, values.gapMs) : null;
  let text = render((timing === null ? values : { ...values, gapMs: timing.gapMs }) as Evidence["values"], fmt);
  if (timing !== null && timing.clockSkewMs > 0) text += lang.separator + lang.clockNote(f.d(timing.clockSkewMs));
  if (e.coarse) text += lang.coarse;
  if (e.tolerant) text += lang.tolerant(f.d(o.clockSkewMs ?? 3000));
  if (e.receipt) text += lang.receipt;
  return text;
}

/** `unrecognised`: skipped lines that looked relevant in the sources that could have filled the gap. */
export function describeMissing(m: MissingData, o: RenderOptions = {}, unrecognised?: { lines: number; sources: string[] }): string {
  const { lang, f } = setup(o);
  const text = lang.missing[m.code](m, f);
  return unrecognised === undefined || unrecognised.lines === 0 ? text : text + lang.unrecognisedNear(unrecognised.lines, unrecognised.sources.join(", "));
}

export function describeAdvice(a: Advice, o: RenderOptions = {}): string {
  const { lang, f } = setup(o);
  const render = lang.advice[a.code as AdviceCode] as (v: Advice["values"], f: Fmt) => string;
  return render(a.values, f);
}

/** One line per verdict: cause, confidence, outcome and the gap, with the clocks' disagreement when they have one. */
export function describeVerdict(v: Verdict, o: RenderOptions = {}): string {
  const { lang, f } = setup(o);
  return lang.verdict(v, f, lang);
}

/** A verdict's group and topic, and its two deliveries by time and instance in the diagnosis's order. */
export function describePair(v: Pick<Verdict, "group" | "topic">, first: PairDelivery, second: PairDelivery, o: RenderOptions = {}): string {
  const { lang, f } = setup(o);
  return lang.pair({ group: v.group, topic: v.topic, first, second }, f);
}

/** "the hosts' clocks disagree by ~N": the one wording of it, for the timeline as for the verdicts. */
export function describeClockSkew(skewMs: number, o: RenderOptions = {}): string {
  const { lang, f } = setup(o);
  return lang.clockNote(f.d(skewMs));
}

export function causeName(cause: Cause, locale: Locale = "en"): string {
  return LANGUAGES[locale].cause[cause];
}

export function outcomeName(outcome: Outcome, locale: Locale = "en"): string {
  return LANGUAGES[locale].outcome[outcome];
}

export function defectName(defect: Defect, locale: Locale = "en"): string {
  return LANGUAGES[locale].defect[defect];
}

export function gapClassName(gap: GapClass, locale: Locale = "en"): string {
  return LANGUAGES[locale].gapClass[gap];
}
