import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { findFormat } from "../../../collectors/registry.ts";
import { findTimestamp } from "../../../collectors/codecs/timestamp.ts";

/**
 * Two-digit-year stamps. Spark's log4j template prints `%d{yy/MM/dd HH:mm:ss}`, so Kafka consumers inside Spark jobs
 * log `18/12/31 12:01:02 INFO Fetcher: …`; other layouts print `yy-MM-dd`, `dd-MM-yy`, `dd/MM/yy` or `MM/dd/yy`.
 * They used to be read as a bare time of day on the file's date.
 */

const DAY = 86_400_000;
const iso = (ts: number) => new Date(ts).toISOString();
const two = (n: number) => String(n).padStart(2, "0");

function read(text: string, date?: string): string {
  const found = findTimestamp(text, { utcOffset: "Z", ...(date === undefined ? {} : { date }) });
  assert.ok(found?.ok, `no time in "${text}": ${JSON.stringify(found)}`);
  return iso(found.time.ts);
}

describe("two-digit-year timestamps", () => {
  it("reads Spark's yy/MM/dd stamps as the dates they name, whatever the file's date", () => {
    // Lines from a Spark Streaming job's console (the epoch in its RecurringTimer line, 1546254065000, is that day).
    assert.equal(read("18/12/31 12:01:02 INFO Fetcher: [Consumer clientId=consumer-1, groupId=g] Resetting offset", "2026-11-30"), "2018-12-31T12:01:02.000Z");
    // 22/02/28 is also a real day-first date (2028-02-22), after the file's date: year first wins.
    assert.equal(read("22/02/28 20:36:36 INFO ConsumerCoordinator: …", "2026-11-30"), "2022-02-28T20:36:36.000Z");
    assert.equal(read("22/02/28 20:36:36 INFO ConsumerCoordinator: …", "2022-03-01"), "2022-02-28T20:36:36.000Z");
  });

  it("takes the reading nearest the file's date for day-first and month-first layouts", () => {
    assert.equal(read("23/11/24 10:00:00,123 INFO x", "2024-11-25"), "2024-11-23T10:00:00.123Z");
    assert.equal(read("24-11-23 17:51:15.440 INFO x", "2024-11-25"), "2024-11-23T17:51:15.440Z");
    assert.equal(read("12/31/24 10:00:00 INFO x", "2025-01-02"), "2024-12-31T10:00:00.000Z");
    assert.equal(read("[24-11-23 17:51:15] [main] INFO x", "2024-11-23"), "2024-11-23T17:51:15.000Z");
  });

  it("reads year first when the caller gives no date", () => {
    assert.equal(read("24-11-23 17:51:15.440 INFO x"), "2024-11-23T17:51:15.440Z");
    // Only one reading is a real date: 13 cannot be a month.
    assert.equal(read("05/13/24 23:59:59 INFO x"), "2024-05-13T23:59:59.000Z");
  });

  it("keeps a zone written after the stamp", () => {
    assert.equal(read("24-11-23 17:51:15.440+08:00 INFO x", "2024-11-23"), "2024-11-23T09:51:15.440Z");
  });

  it("refuses a stamp that is no date in any order, and does not read one out of a longer number", () => {
    const found = findTimestamp("31/31/31 10:00:00 INFO x", { utcOffset: "Z", date: "2026-11-30" });
    assert.deepEqual(found, { ok: false, text: "31/31/31 10:00:00", reason: 'impossible timestamp "31/31/31 10:00:00"' });
    assert.equal(read("2026-11-30 20:00:01.204 INFO x"), "2026-11-30T20:00:01.204Z");
    assert.equal(read("pool-1-26-11-30 20:00:01 INFO x", "2026-11-30"), "2026-11-30T20:00:01.000Z");
  });

  it("reads any date back in every order when the file was modified within a week of it", () => {
    const orders = ["yy-MM-dd", "yy/MM/dd", "dd-MM-yy", "dd/MM/yy", "MM/dd/yy"] as const;
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1) / DAY, max: Date.UTC(2099, 11, 24) / DAY }),
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom(...orders),
        fc.integer({ min: 0, max: DAY / 1000 - 1 }),
        (day, later, order, second) => {
          const at = new Date(day * DAY + second * 1000);
          const [y, mo, d] = [two(at.getUTCFullYear() % 100), two(at.getUTCMonth() + 1), two(at.getUTCDate())];
          const date = { "yy-MM-dd": `${y}-${mo}-${d}`, "yy/MM/dd": `${y}/${mo}/${d}`, "dd-MM-yy": `${d}-${mo}-${y}`, "dd/MM/yy": `${d}/${mo}/${y}`, "MM/dd/yy": `${mo}/${d}/${y}` }[order];
          const time = at.toISOString().slice(11, 19);
          const fileDate = new Date((day + later) * DAY).toISOString().slice(0, 10);
          assert.equal(read(`${date} ${time} INFO x`, fileDate), at.toISOString());
        },
      ),
    );
  });

  it("gives a Kafka consumer's lines in Spark's layout their events and dates", () => {
    const parser = findFormat("kafka-client-log")!.open({ source: "spark", date: "2026-11-30" });
    const lines = [
      "18/12/31 12:01:02 INFO ConsumerCoordinator: [Consumer clientId=consumer-1, groupId=use_a_separate_group_id_for_each_stream] Setting newly assigned partitions [prueba-0, prueba-1, prueba-2]",
      "18/12/31 12:01:02 INFO Fetcher: [Consumer clientId=consumer-1, groupId=use_a_separate_group_id_for_each_stream] Resetting offset for partition prueba-0 to offset 4180.",
    ];
    const events = [...lines.flatMap((line, i) => parser.line(line, i + 1).events), ...parser.end().events];
    assert.deepEqual(
      events.map((e) => [e.kind, e.detail.action, iso(e.ts), e.group]),
      [
        ...["prueba-0", "prueba-1", "prueba-2"].map(() => ["rebalance", "assign", "2018-12-31T12:01:02.000Z", "use_a_separate_group_id_for_each_stream"]),
        ["instance_lifecycle", "offset_reset", "2018-12-31T12:01:02.000Z", "use_a_separate_group_id_for_each_stream"],
      ],
    );
  });
});
