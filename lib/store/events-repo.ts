import { storableProblem } from "../events/limits.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { eventCopyLine, EVENT_COLUMNS } from "./copy-text.ts";
import type { SqlDriver, SqlSession } from "./driver.ts";

export interface InsertResult {
  accepted: number;
  duplicates: number;
  /** Events refused, by index into the batch given, with the reason: by the limits, or by the database itself. */
  rejected: { index: number; reason: string }[];
}

/**
 * A database error about one row's data (SQLSTATE class 22, data exception; 54001, too deeply nested): the batch
 * is not lost for it. The rows are split in halves until the ones the database refuses are found; the others are
 * stored. Anything else (connection, permission, disk) fails the batch as before, for the caller to retry.
 */
function isRowDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("22") || code === "54001");
}

function dbReason(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return `the database refused it (${e.code}: ${e.message ?? String(error)})`;
}

/**
 * Stores `rows` with `write`, or, when the database refuses their data, each half on its own until the rows it
 * refuses stand alone. Returns the rows stored and the refused ones' positions with the database's reason.
 */
async function isolate<T>(rows: T[], write: (rows: T[]) => Promise<number>): Promise<{ stored: number; refused: { at: number; reason: string }[] }> {
  try {
    return { stored: await write(rows), refused: [] };
  } catch (error) {
    if (!isRowDataError(error)) throw error;
    if (rows.length === 1) return { stored: 0, refused: [{ at: 0, reason: dbReason(error) }] };
    const middle = Math.ceil(rows.length / 2);
    const first = await isolate(rows.slice(0, middle), write);
    const second = await isolate(rows.slice(middle), write);
    return { stored: first.stored + second.stored, refused: [...first.refused, ...second.refused.map((r) => ({ ...r, at: r.at + middle }))] };
  }
}

/** Rows per statement; bounded so one batch's arrays or COPY text stay a few MB even with large `detail` values. */
const BATCH_ROWS = 5000;

/**
 * Inserts events, skipping any whose id is already stored, and reports exactly how many were new: re-ingest is
 * idempotent and counted. Goes around the ORM, which manages ~7k rows/s. On PostgreSQL rows are COPYed
 * (insertCopyRows); PGlite has no COPY FROM STDIN, so there one `INSERT … SELECT FROM unnest(…) ON CONFLICT DO
 * NOTHING` per batch sends 18 arrays instead of 18 parameters per row.
 */
export async function insertEvents(driver: SqlDriver, events: NormalizedEvent[]): Promise<InsertResult> {
  if (driver.mode === "postgres") return insertCopyRows(driver, toCopyRows(events));
  const rejected: InsertResult["rejected"] = [];
  const storable: { event: NormalizedEvent; index: number }[] = [];
  events.forEach((event, index) => {
    const problem = storableProblem(event);
    if (problem) rejected.push({ index, reason: problem });
    else storable.push({ event, index });
  });
  let accepted = 0;
  for (let start = 0; start < storable.length; start += BATCH_ROWS) {
    const batch = storable.slice(start, start + BATCH_ROWS);
    const result = await isolate(batch, (rows) => driver.session((session) => insertByUnnest(session, rows.map((r) => r.event))));
    accepted += result.stored;
    for (const r of result.refused) rejected.push({ index: batch[r.at]!.index, reason: r.reason });
  }
  return { accepted, duplicates: events.length - accepted - rejected.length, rejected: rejected.sort((a, b) => a.index - b.index) };
}

/** A batch already in COPY text form: one string per chunk instead of thousands of event objects. */
export interface CopyRows {
  /** Events in the batch, including repeats of one id. */
  count: number;
  /** COPY text of the distinct events, in chunks of at most BATCH_ROWS rows, with each row's index in the batch. */
  chunks: { rows: number; text: string; indexes: number[] }[];
  /** Events the limits refuse, by index in the batch; they have no row. */
  rejected: { index: number; reason: string }[];
}

/**
 * Turns events into COPY text right away. A writer that holds a batch while the database works (and retries it)
 * then keeps a few large strings alive instead of every event object, which the garbage collector would promote
 * and sweep again and again.
 */
export function toCopyRows(events: NormalizedEvent[]): CopyRows {
  const seen = new Set<string>();
  const chunks: CopyRows["chunks"] = [];
  const rejected: CopyRows["rejected"] = [];
  let text = "";
  let indexes: number[] = [];
  events.forEach((event, index) => {
    if (seen.has(event.id)) return;
    const detailJson = JSON.stringify(event.detail);
    const problem = storableProblem(event, detailJson);
    if (problem) {
      rejected.push({ index, reason: problem });
      return;
    }
    seen.add(event.id);
    text += eventCopyLine(event, detailJson);
    indexes.push(index);
    if (indexes.length === BATCH_ROWS) {
      chunks.push({ rows: indexes.length, text, indexes });
      text = "";
      indexes = [];
    }
  });
  if (indexes.length > 0) chunks.push({ rows: indexes.length, text, indexes });
  return { count: events.length, chunks, rejected };
}

export async function insertCopyRows(driver: SqlDriver, batch: CopyRows): Promise<InsertResult> {
  let accepted = 0;
  const rejected = [...batch.rejected];
  for (const chunk of batch.chunks) {
    try {
      accepted += await driver.session((session) => insertByCopy(session, chunk));
    } catch (error) {
      if (!isRowDataError(error)) throw error;
      // A COPY row is one line (its fields escape newlines): split the chunk into rows only now that it failed.
      const rows = rowsOf(chunk);
      const result = await isolate(rows, (part) => driver.session((session) => insertByCopy(session, { rows: part.length, text: part.map((r) => r.line).join("") })));
      accepted += result.stored;
      for (const r of result.refused) rejected.push({ index: rows[r.at]!.index, reason: r.reason });
    }
  }
  return { accepted, duplicates: batch.count - accepted - rejected.length, rejected: rejected.sort((a, b) => a.index - b.index) };
}

/** The chunk's rows with their batch indexes; only split apart when the database refused the chunk. */
function rowsOf(chunk: CopyRows["chunks"][number]): { line: string; index: number }[] {
  const lines = chunk.text.split("\n");
  lines.pop();
  return lines.map((body, i) => ({ line: `${body}\n`, index: chunk.indexes[i]! }));
}

/**
 * First-time ingest is the common case, so the rows are COPYed straight into the table: the speed of a raw COPY.
 * When any row is already stored (a re-ingest, a resumed run, a concurrent writer) the unique index refuses the
 * whole COPY, usually at its first rows, and the chunk goes through the staging table instead.
 */
async function insertByCopy(session: SqlSession, chunk: { rows: number; text: string }): Promise<number> {
  try {
    await session.copyIn!(`COPY events (${EVENT_COLUMNS.join(", ")}) FROM STDIN`, [chunk.text]);
    return chunk.rows;
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    return insertByStaging(session, chunk.text);
  }
}

const UNIQUE_VIOLATION = "23505";

async function insertByStaging(session: SqlSession, copyText: string): Promise<number> {
  const columns = EVENT_COLUMNS.join(", ");
  await session.exec("BEGIN");
  try {
    await session.exec(`CREATE TEMP TABLE IF NOT EXISTS events_incoming (LIKE events INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`);
    await session.copyIn!(`COPY events_incoming (${columns}) FROM STDIN`, [copyText]);
    const inserted = await session.run(`INSERT INTO events (${columns}) SELECT ${columns} FROM events_incoming ON CONFLICT (id) DO NOTHING`);
    await session.exec("COMMIT");
    return inserted;
  } catch (error) {
    await session.exec("ROLLBACK").catch(() => {});
    throw error;
  }
}

async function insertByUnnest(session: SqlSession, batch: NormalizedEvent[]): Promise<number> {
  const column = <T>(pick: (e: NormalizedEvent) => T) => batch.map(pick);
  return session.run(
    `INSERT INTO events (${EVENT_COLUMNS.join(", ")})
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                          $9::text[], $10::text[], $11::text[], $12::bigint[], $13::text[], $14::int[], $15::boolean[],
                          $16::boolean[], $17::jsonb[], $18::text[])
     ON CONFLICT (id) DO NOTHING`,
    [
      column((e) => e.id),
      column((e) => e.kind),
      column((e) => String(e.ts)),
      column((e) => e.tsPrecision),
      column((e) => e.bizKey),
      column((e) => e.msgId),
      column((e) => e.offsetMsgId),
      column((e) => e.broker),
      column((e) => e.topic),
      column((e) => e.group),
      column((e) => e.queue),
      column((e) => (e.queueOffset === null ? null : String(e.queueOffset))),
      column((e) => e.instance),
      column((e) => e.retryTimes),
      column((e) => e.redelivered),
      column((e) => e.success),
      column((e) => JSON.stringify(e.detail)),
      column((e) => e.source),
    ],
  );
}
