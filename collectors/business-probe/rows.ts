import { canonicalInstance } from "../../lib/events/instance.ts";
import type { DetailValue, NormalizedEvent } from "../../lib/events/model.ts";
import { validateEvent } from "../../lib/events/validate.ts";
import { epochTime, findTimestamp } from "../codecs/timestamp.ts";
import { recordFingerprint } from "../record-fingerprint.ts";
import type { ProbeConfig } from "./config.ts";

/**
 * One row of a business table, read for one key, as the event diagnosis reads (docs/probe.md): a `business_effect`
 * that committed (`success: true`), stamped with the time column by the database's clock (`detail.clock`), naming
 * the probe and the columns that identify the row — never the whole row, which may hold personal data. Its id is a
 * fingerprint of the probe, the key and those columns, so probing again stores nothing twice.
 */

export type RowResult = { ok: true; event: NormalizedEvent } | { ok: false; reason: string };

type Row = Readonly<Record<string, unknown>>;

/** A column value as event detail: text, numbers and booleans as they are, bytes as hex, times as ISO-8601. */
function scalar(value: unknown): DetailValue | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  return undefined;
}

/** The row's time: a date-time as the database prints it (zone-less ones at `utcOffset`), epoch s/ms, or a Date. */
export function rowTime(value: unknown, utcOffset: string): { ts: number; precision: "ms" | "s" } | string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "is not a valid time" : { ts: value.getTime(), precision: "ms" };
  if (typeof value === "number" || typeof value === "bigint" || (typeof value === "string" && /^\d{9,16}$/.test(value.trim()))) {
    const text = String(value).trim();
    const found = epochTime(Number(value), text);
    return found?.ok ? { ts: found.time.ts, precision: found.time.precision } : (found?.reason ?? "is not a time");
  }
  if (typeof value !== "string") return value === null ? "is empty (NULL)" : `is a ${typeof value}, not a time`;
  // PostgreSQL prints whole-hour zones as +00 or -08.
  const text = value.trim().replace(/(\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})$/, "$1$2:00");
  const found = findTimestamp(text, { utcOffset });
  if (found === undefined || !found.ok || found.time.index !== 0 || found.time.length !== text.length) {
    return found !== undefined && !found.ok ? found.reason : `"${text.slice(0, 40)}" is not a date-time like 2026-11-30 12:00:01.204`;
  }
  return { ts: found.time.ts, precision: found.time.precision };
}

/** The configured columns the query does not return, named in one sentence; null when all are there. */
export function missingColumns(probe: ProbeConfig, returned: readonly string[]): string | null {
  const { columns } = probe;
  const missing = [columns.time, ...columns.key, columns.instance, columns.state].filter((c): c is string => c !== null && !returned.includes(c));
  return missing.length === 0 ? null : `the query returns no column ${missing.map((c) => `"${c}"`).join(", ")} (it returns ${returned.join(", ") || "none"})`;
}

export function rowToEvent(probe: ProbeConfig, bizKey: string, row: Row): RowResult {
  const { columns } = probe;
  const missing = missingColumns(probe, Object.keys(row));
  if (missing !== null) return { ok: false, reason: missing };
  const time = rowTime(row[columns.time], probe.utcOffset);
  if (typeof time === "string") return { ok: false, reason: `${columns.time} ${time}` };

  const key: { [column: string]: DetailValue } = {};
  for (const c of columns.key) {
    const v = scalar(row[c]);
    if (v === undefined || v === null) return { ok: false, reason: `key column ${c} is ${v === null ? "NULL" : "not a plain value"}` };
    key[c] = v;
  }
  const detail: { [key: string]: DetailValue } = { probe: probe.name, clock: "database", row: key };
  if (columns.state !== null) {
    const state = scalar(row[columns.state]);
    if (state !== undefined) detail.state = state;
  }
  let instance: string | null = null;
  if (columns.instance !== null) {
    const raw = scalar(row[columns.instance]);
    if (raw !== undefined && raw !== null && String(raw).trim() !== "") {
      const text = String(raw).trim();
      instance = canonicalInstance(text).canonical;
      if (instance !== text) detail.instanceRaw = text;
    }
  }
  const checked = validateEvent({
    id: recordFingerprint("probe", probe.name, bizKey, JSON.stringify(columns.key.map((c) => key[c]))),
    kind: "business_effect",
    ts: time.ts,
    tsPrecision: time.precision,
    bizKey,
    msgId: null,
    offsetMsgId: null,
    broker: probe.broker,
    topic: probe.match.topic,
    group: probe.match.group,
    queue: null,
    queueOffset: null,
    instance,
    retryTimes: null,
    redelivered: null,
    success: true,
    detail,
    source: `probe:${probe.name}`,
  });
  return checked.ok ? { ok: true, event: checked.event } : { ok: false, reason: checked.reason };
}
