/**
 * How long the store keeps what (docs/deploy.md#retention): raw events by DUPSCOPE_RETENTION_EVENTS (default 7 days),
 * verdicts, key diagnoses, rollups and alert history by DUPSCOPE_RETENTION_VERDICTS (default 90 days). Durations are
 * written `<n><unit>` with unit m, h or d ("30m", "12h", "7d"); minutes exist for soak tests and demos.
 */

export interface Retention {
  eventsMs: number;
  verdictsMs: number;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const UNITS: Record<string, number> = { m: MINUTE, h: 60 * MINUTE, d: DAY };

/** Each day of raw events is one partition; ten years is far more than anyone keeps raw traces, and bounds the table count. */
export const MAX_RETENTION_MS = 3650 * DAY;

export const DEFAULT_RETENTION: Retention = { eventsMs: 7 * DAY, verdictsMs: 90 * DAY };

/** A duration written `<n><unit>` (unit m, h or d), between `min` and `max` ms. */
export function parseDuration(name: string, raw: string, min: number, max: number): number {
  const match = /^(\d+)\s*([mhd])$/.exec(raw.trim());
  const ms = match ? Number(match[1]) * UNITS[match[2]!]! : NaN;
  if (!Number.isSafeInteger(ms) || ms < min || ms > max) {
    throw new Error(`${name} must be a duration like 30m, 12h or 7d, between ${min / MINUTE} minute(s) and ${max / DAY} day(s); got "${raw}"`);
  }
  return ms;
}

export const parseRetention = (name: string, raw: string) => parseDuration(name, raw, MINUTE, MAX_RETENTION_MS);

export function retentionFromEnv(env: NodeJS.ProcessEnv = process.env): Retention {
  const events = env.DUPSCOPE_RETENTION_EVENTS?.trim();
  const verdicts = env.DUPSCOPE_RETENTION_VERDICTS?.trim();
  const eventsMs = events ? parseRetention("DUPSCOPE_RETENTION_EVENTS", events) : DEFAULT_RETENTION.eventsMs;
  const verdictsMs = verdicts ? parseRetention("DUPSCOPE_RETENTION_VERDICTS", verdicts) : Math.max(DEFAULT_RETENTION.verdictsMs, eventsMs);
  if (verdictsMs < eventsMs) {
    throw new Error(`DUPSCOPE_RETENTION_VERDICTS (${verdicts}) is shorter than DUPSCOPE_RETENTION_EVENTS (${events}): a verdict would vanish before the events it was drawn from`);
  }
  return { eventsMs, verdictsMs };
}

/**
 * A clock a little ahead is common (hosts drift, a collector's zone setting is off by hours); an event further in
 * the future than this is refused like an expired one, so a garbled year cannot create partitions years ahead.
 */
export const MAX_FUTURE_MS = DAY;

/** The event times a store accepts now: not older than the retention, not further ahead than MAX_FUTURE_MS. */
export interface TsWindow {
  oldest: number;
  newest: number;
}

export function acceptedTs(retention: Retention, now = Date.now()): TsWindow {
  return { oldest: now - retention.eventsMs, newest: now + MAX_FUTURE_MS };
}

/** Why an event time is outside the window, or undefined. */
export function tsProblem(ts: number, window: TsWindow): string | undefined {
  if (ts < window.oldest) {
    return `expired: its time ${new Date(ts).toISOString()} is older than the raw-event retention (before ${new Date(window.oldest).toISOString()}; DUPSCOPE_RETENTION_EVENTS)`;
  }
  if (ts > window.newest) return `its time ${ts > 8.64e15 ? ts : new Date(ts).toISOString()} is more than a day ahead of this server's clock`;
  return undefined;
}
