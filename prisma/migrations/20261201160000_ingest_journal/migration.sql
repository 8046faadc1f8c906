-- The work the statement triggers on "events" did inside every write (queueing keys for diagnosis, marks for
-- keyless events, per-source counts, counters, rebalance rollups) moves off the write path: a writer adds one
-- journal row per batch in the transaction that stores it, and the diagnosis workers fold the rows into those tables
-- (lib/store/ingest-journal.ts). A write is then the COPY and one row, and concurrent writers no longer wait on each
-- other's locks of the same counter rows until they commit.
CREATE TABLE "ingest_journal" (
    "id" BIGSERIAL NOT NULL,
    "written_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "keys" TEXT[] NOT NULL,
    "keyless_msg_ids" TEXT[] NOT NULL,
    "batch" JSONB NOT NULL,

    CONSTRAINT "ingest_journal_pkey" PRIMARY KEY ("id")
);

DROP TRIGGER "events_enqueue_diagnosis" ON "events";
DROP TRIGGER "events_tally_metrics" ON "events";
DROP TRIGGER "events_tally_rebalances" ON "events";
DROP FUNCTION "dupscope_enqueue_diagnosis"();
DROP FUNCTION "dupscope_tally_events"();
DROP FUNCTION "dupscope_roll_rebalances"();
DROP FUNCTION "dupscope_event_format"(TEXT);

-- A keyless event re-queues only the keys around it with something to explain (lib/diagnosis-queue/queue.ts):
-- duplicates through verdicts_group_name_second_ts_idx, lost messages through this.
CREATE INDEX "key_diagnoses_lost_last_ts_idx" ON "key_diagnoses" ("last_ts") WHERE "lost" > 0;
