import { storableProblem } from "../events/limits.ts";
import type { NormalizedEvent } from "../events/model.ts";
import { eventCopyLine, EVENT_COLUMNS } from "./copy-text.ts";
import type { SqlDriver, SqlSession } from "./driver.ts";
import { contributionOfRow, journalOf, JournalBuilder, RETURNED_CONTRIBUTION, writeJournal, type ReturnedRow } from "./ingest-journal.ts";
import { ensureEventPartitions, forgetEventPartitions, minuteOf } from "./partitions.ts";
import { acceptedTs, retentionFromEnv, tsProblem, type TsWindow } from "./retention-config.ts";
import { TextSlab } from "./text-slab.ts";

export interface InsertResult {
  accepted: number;
  duplicates: number;
  /** Events refused, by index into the batch given, with the reason: by the limits, the retention, or the database itself. */
  rejected: { index: number; reason: string }[];
  /** How many of the rejected were outside the accepted time window (expired, or too far ahead). */
  outOfWindow: number;
}

/** The window events are checked against unless the caller passes one: the retention configured now. */
export const currentWindow = (): TsWindow => acceptedTs(retentionFromEnv());

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
 * An event whose time is not in its own record: a line that printed no time (it took the arrival's or the previous
 * line's) or no date (it took the request's or the file's). Sent again, it can come back with another time, so its
 * (id, ts) pair is no proof it is new: it is stored only if no partition holds its id (docs/event-model.md#identity).
 */
function borrowsTime(event: NormalizedEvent): boolean {
  const detail = event.detail as Record<string, unknown>;
  return detail.timeFrom !== undefined || detail.dateFrom !== undefined;
}

/**
 * borrowsTime as SQL, the predicate of events_borrowed_time_id_idx: the index that finds a borrowed event's id in
 * every partition. A record that borrows its time borrows it every time it is sent, so a row with its id is always
 * such a row.
 */
const BORROWED_TIME_ROW = `(e.detail ? 'timeFrom' OR e.detail ? 'dateFrom')`;

/** SQLSTATE of "no partition of relation events found for row". */
const NO_PARTITION = "23514";

/**
 * Runs `write` once the partitions of these minutes exist. This process remembers which exist; if another
 * process's retention job dropped one meanwhile (only possible for a time this clock still accepts when clocks
 * disagree), the write fails with NO_PARTITION, and it is retried once after the partitions are checked again.
 */
async function withPartitions<T>(driver: SqlDriver, minutes: Iterable<number>, write: () => Promise<T>): Promise<T> {
  const list = [...minutes];
  await ensureEventPartitions(driver, list);
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: string }).code !== NO_PARTITION) throw error;
    forgetEventPartitions(driver);
    await ensureEventPartitions(driver, list);
    return write();
  }
}

/**
 * Inserts events, skipping any already stored, and reports exactly how many were new: re-ingest is idempotent and
 * counted. Each write also journals what the new events ask of the queue, counters and rollups
 * (lib/store/ingest-journal.ts), in the same transaction. Goes around the ORM, which manages ~7k rows/s. On
 * PostgreSQL rows are COPYed (insertCopyRows); PGlite has no COPY FROM STDIN, so there one `INSERT … SELECT FROM
 * unnest(…)` per batch sends 18 arrays instead of 18 parameters per row.
 */
export async function insertEvents(driver: SqlDriver, events: NormalizedEvent[], window: TsWindow = currentWindow()): Promise<InsertResult> {
  if (driver.mode === "postgres") return insertCopyRows(driver, toCopyRows(events, window));
  const rejected: InsertResult["rejected"] = [];
  const own: { event: NormalizedEvent; index: number }[] = [];
  const borrowed: { event: NormalizedEvent; index: number }[] = [];
  let outOfWindow = 0;
  events.forEach((event, index) => {
    const late = tsProblem(event.ts, window);
    if (late) outOfWindow += 1;
    const problem = late ?? storableProblem(event);
    if (problem) rejected.push({ index, reason: problem });
    else (borrowsTime(event) ? borrowed : own).push({ event, index });
  });
  const minutes = new Set([...own, ...borrowed].map((r) => minuteOf(r.event.ts)));
  const accepted = await withPartitions(driver, minutes, async () => {
    let stored = 0;
    for (const [rows, unlessIdStored] of [[own, false], [borrowed, true]] as const) {
      for (let start = 0; start < rows.length; start += BATCH_ROWS) {
        const batch = rows.slice(start, start + BATCH_ROWS);
        const result = await isolate(batch, (part) => driver.transaction((tx) => insertByUnnest(tx, part.map((r) => r.event), unlessIdStored)));
        stored += result.stored;
        for (const r of result.refused) rejected.push({ index: batch[r.at]!.index, reason: r.reason });
      }
    }
    return stored;
  });
  return { accepted, duplicates: events.length - accepted - rejected.length, rejected: rejected.sort((a, b) => a.index - b.index), outOfWindow };
}

interface Chunk {
  rows: number;
  /**
   * The rows' COPY text as UTF-8, in slices of shared buffers (lib/store/text-slab.ts): a batch waiting to be written
   * is off the JS heap, where the young collector would copy it and then promote it.
   */
  text: Buffer[];
  /** Each row's index in the batch. */
  indexes: number[];
  /**
   * The rows' journal, summed as they were added; written as it is when the COPY stores every row. A chunk split
   * apart after the database refused it has none: what its parts store is journaled from what they return.
   */
  journal?: JournalBuilder;
}

/** A batch already in COPY text form: one string per chunk instead of thousands of event objects. */
export interface CopyRows {
  /** Events in the batch, including repeats of one id. */
  count: number;
  /** COPY text of the distinct events whose time is their own, in chunks of at most BATCH_ROWS rows. */
  chunks: Chunk[];
  /** Events whose time is borrowed (borrowsTime): few, kept as they are, stored only if their id is not. */
  borrowed: { event: NormalizedEvent; index: number }[];
  /** Events the limits or the time window refuse, by index in the batch; they have no row. */
  rejected: { index: number; reason: string }[];
  outOfWindow: number;
  /** The minutes (minuteOf) the rows fall in: their partitions must exist before the COPY. */
  minutes: number[];
}

/**
 * Turns events into COPY text as they come. A writer that holds a batch while the database works (and retries it)
 * then keeps a few large strings alive instead of every event object, which the garbage collector would promote
 * and sweep again and again.
 */
export class CopyRowsBuilder {
  /** Ids of the borrowed events: one sent twice in a batch may come with two times, and must be stored once. */
  private readonly borrowedIds = new Set<string>();
  private readonly minutes = new Set<number>();
  private readonly chunks: Chunk[] = [];
  private readonly borrowed: CopyRows["borrowed"] = [];
  private readonly rejected: CopyRows["rejected"] = [];
  private outOfWindow = 0;
  private count = 0;
  private chunk = newChunk();
  /** The minute of the previous row: rows come in time order mostly, so most need no lookup in `minutes`. */
  private lastMinute = Number.NaN;
  /** The COPY text of the rows, cut into each chunk's pieces as the chunk ends and at the end of each `add`. */
  private readonly text = new TextSlab();

  constructor(private readonly window: TsWindow = currentWindow()) {}

  /** Adds events; their indexes continue from the previous call's. */
  add(events: readonly NormalizedEvent[]): void {
    for (const event of events) this.addOne(event, this.count++);
    this.cutText();
  }

  private cutText(): void {
    this.chunk.text.push(...this.text.take());
  }

  /**
   * A record sent twice in one batch is not looked for here: hashing every id cost ~7% of the CLI's time per
   * event, and the repeat is rare (a re-sent line). Its second row makes the COPY fail on the unique index,
   * and that chunk goes through the staging table, which stores it once and counts the other as a duplicate.
   */
  private addOne(event: NormalizedEvent, index: number): void {
    const late = tsProblem(event.ts, this.window);
    if (late) {
      this.outOfWindow += 1;
      this.rejected.push({ index, reason: late });
      return;
    }
    const detailJson = JSON.stringify(event.detail);
    const problem = storableProblem(event, detailJson);
    if (problem) {
      this.rejected.push({ index, reason: problem });
      return;
    }
    const minute = minuteOf(event.ts);
    if (minute !== this.lastMinute) {
      this.minutes.add(minute);
      this.lastMinute = minute;
    }
    if (borrowsTime(event)) {
      if (!this.borrowedIds.has(event.id)) {
        this.borrowedIds.add(event.id);
        this.borrowed.push({ event, index });
      }
      return;
    }
    const chunk = this.chunk;
    this.text.write(eventCopyLine(event, detailJson));
    chunk.indexes.push(index);
    chunk.journal.addEvent(event);
    chunk.rows += 1;
    if (chunk.rows === BATCH_ROWS) {
      this.cutText();
      this.chunks.push(chunk);
      this.chunk = newChunk();
    }
  }

  finish(): CopyRows {
    const chunks = this.chunk.rows > 0 ? [...this.chunks, this.chunk] : [...this.chunks];
    return { count: this.count, chunks, borrowed: this.borrowed, rejected: this.rejected, outOfWindow: this.outOfWindow, minutes: [...this.minutes] };
  }
}

/** The chunk a builder fills: its journal is summed as rows are added. */
type OpenChunk = Chunk & { journal: JournalBuilder };

function newChunk(): OpenChunk {
  return { rows: 0, text: [], indexes: [], journal: new JournalBuilder() };
}

export function toCopyRows(events: readonly NormalizedEvent[], window: TsWindow = currentWindow()): CopyRows {
  const builder = new CopyRowsBuilder(window);
  builder.add(events);
  return builder.finish();
}

export async function insertCopyRows(driver: SqlDriver, batch: CopyRows): Promise<InsertResult> {
  const rejected = [...batch.rejected];
  const accepted = await withPartitions(driver, batch.minutes, async () => {
    let stored = 0;
    for (const chunk of batch.chunks) {
      try {
        stored += await insertChunk(driver, chunk);
      } catch (error) {
        if (!isRowDataError(error)) throw error;
        // A COPY row is one line (its fields escape newlines): split the chunk into rows only now that it failed.
        const rows = rowsOf(chunk);
        const result = await isolate(rows, (part) => insertChunk(driver, chunkOf(part)));
        stored += result.stored;
        for (const r of result.refused) rejected.push({ index: rows[r.at]!.index, reason: r.reason });
      }
    }
    for (let start = 0; start < batch.borrowed.length; start += BATCH_ROWS) {
      const part = batch.borrowed.slice(start, start + BATCH_ROWS);
      const result = await isolate(part, (rows) => driver.transaction((tx) => insertByUnnest(tx, rows.map((r) => r.event), true)));
      stored += result.stored;
      for (const r of result.refused) rejected.push({ index: part[r.at]!.index, reason: r.reason });
    }
    return stored;
  });
  return { accepted, duplicates: batch.count - accepted - rejected.length, rejected: rejected.sort((a, b) => a.index - b.index), outOfWindow: batch.outOfWindow };
}

type ChunkRow = { line: string; index: number };

/** The chunk's rows with their batch indexes; only split apart when the database refused the chunk. */
function rowsOf(chunk: Chunk): ChunkRow[] {
  const lines = Buffer.concat(chunk.text).toString().split("\n");
  lines.pop();
  return lines.map((body, i) => ({ line: `${body}\n`, index: chunk.indexes[i]! }));
}

function chunkOf(rows: ChunkRow[]): Chunk {
  return { rows: rows.length, text: [Buffer.from(rows.map((r) => r.line).join(""))], indexes: rows.map((r) => r.index) };
}

const COPY_EVENTS = `COPY events (${EVENT_COLUMNS.join(", ")}) FROM STDIN`;
const UNIQUE_VIOLATION = "23505";

/**
 * First-time ingest is the common case, so the rows are COPYed straight into the table, with their journal row, in
 * one transaction: the speed of a raw COPY. When any row is already stored (a re-ingest, a resumed run, a
 * concurrent writer) the unique index refuses the whole COPY, usually at its first rows, and the chunk goes
 * through the staging table instead.
 */
async function insertChunk(driver: SqlDriver, chunk: Chunk): Promise<number> {
  const journal = chunk.journal;
  if (journal === undefined) return driver.transaction((tx) => insertByStaging(tx, chunk));
  try {
    return await driver.transaction(async (tx) => {
      await tx.copyIn!(COPY_EVENTS, chunk.text);
      await writeJournal(tx, journal.finish());
      return chunk.rows;
    });
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    return driver.transaction((tx) => insertByStaging(tx, chunk));
  }
}

async function insertByStaging(tx: SqlSession, chunk: Chunk): Promise<number> {
  const columns = EVENT_COLUMNS.join(", ");
  await tx.exec(`CREATE TEMP TABLE IF NOT EXISTS events_incoming (LIKE events INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`);
  await tx.copyIn!(`COPY events_incoming (${columns}) FROM STDIN`, chunk.text);
  const inserted = await tx.query<ReturnedRow>(
    `INSERT INTO events (${columns}) SELECT ${columns} FROM events_incoming ON CONFLICT (id, ts) DO NOTHING RETURNING ${RETURNED_CONTRIBUTION}`,
  );
  await writeJournal(tx, journalOf(inserted.map(contributionOfRow)));
  return inserted.length;
}

async function insertByUnnest(tx: SqlSession, batch: NormalizedEvent[], unlessIdStored: boolean): Promise<number> {
  const column = <T>(pick: (e: NormalizedEvent) => T) => batch.map(pick);
  const inserted = await tx.query<ReturnedRow>(
    `INSERT INTO events (${EVENT_COLUMNS.join(", ")})
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                          $9::text[], $10::text[], $11::text[], $12::bigint[], $13::text[], $14::int[], $15::boolean[],
                          $16::boolean[], $17::jsonb[], $18::text[]) AS u(${EVENT_COLUMNS.join(", ")})
     ${unlessIdStored ? `WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = u.id AND ${BORROWED_TIME_ROW})` : ""}
     ON CONFLICT (id, ts) DO NOTHING
     RETURNING ${RETURNED_CONTRIBUTION}`,
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
  await writeJournal(tx, journalOf(inserted.map(contributionOfRow)));
  return inserted.length;
}
