import { CAUSES, type Cause } from "../diagnosis/vocabulary.ts";

/**
 * The filters every dashboard page keeps in its URL (so a link shows what the sender saw): a time range (a preset
 * ending now, or custom from/to in UTC), group, topic and cause. Pure: parsing and link building only.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export const RANGE_PRESETS = { "15m": 15 * MIN, "1h": HOUR, "6h": 6 * HOUR, "24h": DAY, "7d": 7 * DAY } as const;
export type RangePreset = keyof typeof RANGE_PRESETS;
export type RangeKey = RangePreset | "custom";
export const DEFAULT_RANGE: RangePreset = "24h";

export interface Filters {
  range: RangeKey;
  from: number;
  to: number;
  /** Width of one chart bucket; buckets are aligned to multiples of it (round clock times). */
  bucketMs: number;
  group: string | null;
  topic: string | null;
  cause: Cause | null;
}

export type SearchParams = Record<string, string | string[] | undefined>;

/** Steps for chart buckets: at most MAX_BUCKETS per range, so 15 min gets 10 s bars and 7 days 2 h ones. */
const BUCKETS = [10_000, 30_000, MIN, 5 * MIN, 15 * MIN, 30 * MIN, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY];
const MAX_BUCKETS = 100;

export function bucketFor(spanMs: number): number {
  return BUCKETS.find((b) => spanMs / b <= MAX_BUCKETS) ?? Math.ceil(spanMs / MAX_BUCKETS / DAY) * DAY;
}

/**
 * A range reaching back before the raw events still stored is charted in whole minutes at least: a key with nothing
 * found is forgotten with its raw events (lib/retention/job.ts), and from then on only the per-minute key rollups
 * count it, so finer bars there would count only the keys with a finding.
 */
export function atKeptResolution<F extends Filters>(f: F, rawEventsFrom: number | null): F {
  if (rawEventsFrom === null || f.from >= rawEventsFrom || f.bucketMs % MIN === 0) return f;
  return { ...f, bucketMs: MIN };
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() || null;

/**
 * Epoch ms, or a date and time as the filter bar writes it (`2026-11-30 12:00`) or as a URL carries it
 * (`2026-11-30T12:00`), read as UTC like every time the UI shows.
 */
export function parseTime(value: string | null): number | null {
  if (value === null) return null;
  if (/^\d{10,}$/.test(value)) return Number(value);
  const iso = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value) ? `${value.replace(" ", "T")}Z` : value;
  const ts = Date.parse(iso);
  return Number.isNaN(ts) ? null : ts;
}

export function parseFilters(sp: SearchParams, now: number): Filters {
  const rangeParam = first(sp.range);
  const cause = first(sp.cause);
  const text = (name: string) => {
    const v = first(sp[name]);
    return v !== null && v.length <= 255 ? v : null;
  };
  let range: RangeKey = rangeParam !== null && rangeParam in RANGE_PRESETS ? (rangeParam as RangePreset) : DEFAULT_RANGE;
  let from = now - RANGE_PRESETS[range as RangePreset];
  let to = now;
  const customFrom = parseTime(first(sp.from));
  const customTo = parseTime(first(sp.to));
  if (rangeParam === "custom" && customFrom !== null) {
    range = "custom";
    from = customFrom;
    to = customTo ?? now;
    if (from > to) [from, to] = [to, from];
  }
  return {
    range,
    from,
    to,
    bucketMs: bucketFor(Math.max(to - from, 1)),
    group: text("group"),
    topic: text("topic"),
    cause: cause !== null && (CAUSES as readonly string[]).includes(cause) ? (cause as Cause) : null,
  };
}

/** `datetime-local` text of an epoch ms, in UTC. */
export function toDatetimeLocal(ts: number): string {
  return new Date(ts).toISOString().slice(0, 16);
}

/** The query string of these filters with some changed; a preset range leaves from/to out so the link stays live. */
export function filterQuery(f: Filters, change: Partial<Pick<Filters, "range" | "from" | "to" | "group" | "topic" | "cause">> = {}): string {
  const next = { ...f, ...change };
  const params = new URLSearchParams();
  if (next.range !== DEFAULT_RANGE) params.set("range", next.range);
  if (next.range === "custom") {
    params.set("from", toDatetimeLocal(next.from));
    params.set("to", toDatetimeLocal(next.to));
  }
  if (next.group) params.set("group", next.group);
  if (next.topic) params.set("topic", next.topic);
  if (next.cause) params.set("cause", next.cause);
  const query = params.toString();
  return query === "" ? "" : `?${query}`;
}
