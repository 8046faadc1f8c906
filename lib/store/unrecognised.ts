import { logger } from "../log.ts";
import type { SqlDriver } from "./driver.ts";

/**
 * The store's side of the unrecognised lines (lib/ingest/unrecognised.ts makes the reports): a report is added to its
 * source's count, and its shapes to the source's sample while the sample holds fewer than `maxShapes`. Writers in
 * several processes may race on one source's sample; the bound then overshoots by at most one report's shapes.
 */

export interface StoredShape {
  shape: string;
  anchor: string;
  count: number;
  lastLine: number;
  lastSeen: number;
}

export interface ShapeReport {
  source: string;
  format: string;
  instance: string | null;
  count: number;
  shapes: readonly StoredShape[];
  groups: readonly string[];
}

const MAX_GROUPS = 20;

export async function recordUnrecognised(driver: SqlDriver, report: ShapeReport, maxShapes: number): Promise<void> {
  try {
    await record(driver, report, maxShapes);
  } catch (error) {
    // A sample of what was skipped must never cost the ingest whose events are stored.
    logger.warn({ err: error, source: report.source }, "could not keep the unrecognised lines' shapes");
  }
}

async function record(driver: SqlDriver, report: ShapeReport, maxShapes: number): Promise<void> {
  const seen = new Date(Math.max(...report.shapes.map((s) => s.lastSeen), 0) || Date.now());
  await driver.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO unrecognised_sources AS s (source, format, instance, lines, groups, first_seen, last_seen)
         VALUES ($1, $2, $3, $4, $5::text[], $6, $6)
       ON CONFLICT (source) DO UPDATE SET
         format = EXCLUDED.format,
         instance = COALESCE(EXCLUDED.instance, s.instance),
         lines = s.lines + EXCLUDED.lines,
         groups = (SELECT COALESCE(array_agg(g), '{}') FROM (SELECT DISTINCT g FROM unnest(s.groups || EXCLUDED.groups) AS g LIMIT ${MAX_GROUPS}) AS u),
         last_seen = GREATEST(s.last_seen, EXCLUDED.last_seen)`,
      [report.source, report.format, report.instance, String(report.count), report.groups.slice(0, MAX_GROUPS), seen],
    );
    if (report.shapes.length === 0) return;
    const held = await tx.query<{ shape: string }>(`SELECT shape FROM unrecognised_shapes WHERE source = $1`, [report.source]);
    const known = new Set(held.map((r) => r.shape));
    let room = maxShapes - known.size;
    const kept = report.shapes.filter((s) => known.has(s.shape) || room-- > 0);
    if (kept.length === 0) return;
    await tx.run(
      `INSERT INTO unrecognised_shapes AS u (source, shape, anchor, lines, last_line, last_seen)
         SELECT $1, shape, anchor, lines, last_line, to_timestamp(last_seen / 1000.0)
           FROM unnest($2::text[], $3::text[], $4::bigint[], $5::int[], $6::bigint[]) AS x(shape, anchor, lines, last_line, last_seen)
       ON CONFLICT (source, shape) DO UPDATE SET
         lines = u.lines + EXCLUDED.lines,
         last_line = EXCLUDED.last_line,
         last_seen = GREATEST(u.last_seen, EXCLUDED.last_seen)`,
      [
        report.source,
        kept.map((s) => s.shape),
        kept.map((s) => s.anchor),
        kept.map((s) => String(s.count)),
        kept.map((s) => s.lastLine),
        kept.map((s) => String(s.lastSeen)),
      ],
    );
  });
}

export interface UnrecognisedSourceRow {
  source: string;
  format: string;
  instance: string | null;
  count: number;
  groups: string[];
  firstSeen: number;
  lastSeen: number;
  shapes: StoredShape[];
}

/** Every source with unrecognised lines, the most recently seen first, each with its shapes by count. */
export async function readUnrecognised(driver: SqlDriver, limit = 100): Promise<UnrecognisedSourceRow[]> {
  const sources = await driver.query<{ source: string; format: string; instance: string | null; lines: string | number; groups: string[]; first_seen: Date; last_seen: Date }>(
    `SELECT source, format, instance, lines, groups, first_seen, last_seen FROM unrecognised_sources ORDER BY last_seen DESC, source LIMIT $1`,
    [limit],
  );
  if (sources.length === 0) return [];
  const shapes = await driver.query<{ source: string; shape: string; anchor: string; lines: string | number; last_line: number; last_seen: Date }>(
    `SELECT source, shape, anchor, lines, last_line, last_seen FROM unrecognised_shapes WHERE source = ANY($1::text[]) ORDER BY lines DESC, shape`,
    [sources.map((s) => s.source)],
  );
  const bySource = new Map<string, StoredShape[]>();
  for (const s of shapes) {
    const list = bySource.get(s.source) ?? [];
    list.push({ shape: s.shape, anchor: s.anchor, count: Number(s.lines), lastLine: s.last_line, lastSeen: new Date(s.last_seen).getTime() });
    bySource.set(s.source, list);
  }
  return sources.map((s) => ({
    source: s.source,
    format: s.format,
    instance: s.instance,
    count: Number(s.lines),
    groups: s.groups,
    firstSeen: new Date(s.first_seen).getTime(),
    lastSeen: new Date(s.last_seen).getTime(),
    shapes: bySource.get(s.source) ?? [],
  }));
}

/** Sources with unrecognised lines whose events named one of `groups`, or which were ingested as one of `instances`. */
export async function unrecognisedNear(driver: SqlDriver, groups: readonly string[], instances: readonly string[]): Promise<{ source: string; lines: number; groups: string[]; instance: string | null }[]> {
  if (groups.length === 0 && instances.length === 0) return [];
  const rows = await driver.query<{ source: string; lines: string | number; groups: string[]; instance: string | null }>(
    `SELECT source, lines, groups, instance FROM unrecognised_sources WHERE groups && $1::text[] OR instance = ANY($2::text[]) ORDER BY last_seen DESC LIMIT 20`,
    [groups, instances],
  );
  return rows.map((r) => ({ ...r, lines: Number(r.lines) }));
}
