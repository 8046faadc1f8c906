import type { NormalizedEvent } from "../events/model.ts";
import { CopyRowsBuilder, insertCopyRows, toCopyRows, type CopyRows } from "../store/events-repo.ts";
import type { SqlDriver } from "../store/driver.ts";
import { openPgWriter } from "../store/pg-writer.ts";
import { recordUnrecognised } from "../store/unrecognised.ts";
import { DEFAULT_RETRY, FatalSinkError, withRetry, type EventSink, type RetryPolicy } from "./sink.ts";
import { MAX_SHAPES } from "./unrecognised.ts";

/**
 * Writes batches straight into PostgreSQL (`--database`). The events come from the collectors' parsers, whose
 * output the contract test (tests/contract/collectors.test.ts) and their property tests hold to the ingest
 * schema, so they are not validated again here: zod costs ~13 µs an event, a third of the whole ingest budget.
 * The embedded PGlite store is not offered: it belongs to the server process that has it open, and two
 * processes on one PGlite directory corrupt it.
 */
export async function storeSink(databaseUrl: string, options: { retry?: RetryPolicy } = {}): Promise<EventSink> {
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new FatalSinkError(
      `--database must be a PostgreSQL URL (postgres://…). The embedded store belongs to the server process that opened it: send to it with --server instead.`,
    );
  }
  const retry = options.retry ?? DEFAULT_RETRY;
  let driver: SqlDriver;
  try {
    driver = await withRetry(retry, () => openPgWriter(databaseUrl));
  } catch (error) {
    throw new FatalSinkError(`cannot open ${databaseUrl.replace(/:[^:@/]*@/, ":***@")}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const store = (rows: CopyRows) => withRetry(retry, () => insertCopyRows(driver, rows));
  return {
    description: "PostgreSQL (direct)",
    // Not async: the events become COPY text here and nothing keeps the objects alive while the batch is stored.
    write: (events: NormalizedEvent[]) => store(toCopyRows(events)),
    batch() {
      const builder = new CopyRowsBuilder();
      return { add: (events) => builder.add(events), write: () => store(builder.finish()) };
    },
    unrecognised: (report) => withRetry(retry, () => recordUnrecognised(driver, report, MAX_SHAPES)),
    close: () => driver.close(),
  };
}
