import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { SqlDriver } from "../../lib/store/driver.ts";
import { ensureEventPartitions, eventPartitions, minuteOf } from "../../lib/store/partitions.ts";
import { openPgWriter } from "../../lib/store/pg-writer.ts";
import { backends } from "../helpers/stores.ts";

const DAY = 86_400_000;

const postgres = backends.find((b) => b.name === "postgres");

describe("writers meeting a missing partition at once", { skip: postgres ? false : "needs TEST_DATABASE_URL" }, () => {
  let writers: SqlDriver[] = [];
  let dispose: () => Promise<void>;

  before(async () => {
    const created = await postgres!.create();
    dispose = created.dispose;
    const url = (created.config as { url: string }).url;
    // Each writer has its own pool and its own memory of which partitions exist, as separate processes do.
    writers = [await openPgWriter(url)];
    writers.push(...(await Promise.all([1, 2, 3].map(() => openPgWriter(url)))));
  });

  after(async () => {
    await Promise.all(writers.map((w) => w.close()));
    await dispose?.();
  });

  it("all succeed, and each day gets one partition", async () => {
    const first = Date.UTC(2026, 10, 1);
    const days = Array.from({ length: 12 }, (_, i) => first + i * DAY);
    for (const day of days) {
      // Two batches of each writer at once, as the CLI keeps two in flight.
      await Promise.all(writers.flatMap((w) => [ensureEventPartitions(w, [minuteOf(day + 1000)]), ensureEventPartitions(w, [minuteOf(day + 2000)])]));
    }
    const partitions = await eventPartitions(writers[0]!);
    assert.deepEqual(partitions.map((p) => p.from), days);
  });
});
