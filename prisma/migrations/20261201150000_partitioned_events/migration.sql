-- Raw events are partitioned by "ts" (a UTC day per partition by default), so retention drops a day's table
-- instead of deleting rows, which at production volume would bloat the table and the WAL (docs/deploy.md#retention).
--
-- A unique index of a partitioned table must contain the partition key, so the primary key is ("id", "ts").
-- Idempotency holds across partitions because both halves come from the record: the id hashes the record's own
-- text (collectors/record-fingerprint.ts) and "ts" is parsed from it, so the same record gives the same pair and
-- lands in the same partition, where ON CONFLICT ("id", "ts") finds it. Events whose time is not in their record
-- (borrowed from the arrival or a previous line) are checked by id across partitions before they are stored
-- (lib/store/events-repo.ts, docs/event-model.md#identity).

ALTER TABLE "events" RENAME TO "events_unpartitioned";
ALTER TABLE "events_unpartitioned" RENAME CONSTRAINT "events_pkey" TO "events_unpartitioned_pkey";
ALTER INDEX "events_biz_key_ts_idx" RENAME TO "events_unpartitioned_biz_key_ts_idx";
ALTER INDEX "events_msg_id_idx" RENAME TO "events_unpartitioned_msg_id_idx";
ALTER INDEX "events_group_name_ts_idx" RENAME TO "events_unpartitioned_group_name_ts_idx";
ALTER INDEX "events_offset_msg_id_idx" RENAME TO "events_unpartitioned_offset_msg_id_idx";
ALTER INDEX "events_keyless_group_ts_idx" RENAME TO "events_unpartitioned_keyless_group_ts_idx";

CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "ts_precision" TEXT NOT NULL,
    "biz_key" TEXT,
    "msg_id" TEXT,
    "offset_msg_id" TEXT,
    "broker" TEXT NOT NULL,
    "topic" TEXT,
    "group_name" TEXT,
    "queue" TEXT,
    "queue_offset" BIGINT,
    "instance" TEXT,
    "retry_times" INTEGER,
    "redelivered" BOOLEAN,
    "success" BOOLEAN,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "source" TEXT NOT NULL,
    "ingested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id", "ts")
) PARTITION BY RANGE ("ts");

CREATE INDEX "events_biz_key_ts_idx" ON "events"("biz_key", "ts");
CREATE INDEX "events_msg_id_idx" ON "events"("msg_id");
CREATE INDEX "events_group_name_ts_idx" ON "events"("group_name", "ts");
CREATE INDEX "events_offset_msg_id_idx" ON "events"("offset_msg_id") WHERE "offset_msg_id" IS NOT NULL;
CREATE INDEX "events_keyless_group_ts_idx" ON "events"("group_name", "ts") WHERE "biz_key" IS NULL;

-- Settings the store keeps for itself. event_partition_ms, the span of one partition, is recorded when the first
-- partition is made (lib/store/partitions.ts), so differently configured servers cannot make overlapping ones.
CREATE TABLE "dupscope_settings" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "dupscope_settings_pkey" PRIMARY KEY ("name")
);

-- A partition, created if missing; the writer names it and gives its bounds (lib/store/partitions.ts). Writers
-- meeting a new partition at once serialise on an advisory lock, so the second finds the table made. The table is
-- made on its own and then attached: CREATE TABLE … PARTITION OF locks "events" exclusively, so behind one long read
-- it would stop every writer and reader, while ATTACH PARTITION takes a lock that reads and writes do not wait for.
CREATE FUNCTION "dupscope_event_partition"("name" TEXT, "from_ts" BIGINT, "to_ts" BIGINT) RETURNS TEXT LANGUAGE plpgsql AS $$
BEGIN
    IF to_regclass(format('%I', "name")) IS NULL THEN
        PERFORM pg_advisory_xact_lock(hashtext('dupscope:event-partitions'));
        IF to_regclass(format('%I', "name")) IS NULL THEN
            EXECUTE format('CREATE TABLE %I (LIKE "events" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', "name");
            -- The constraint ATTACH would otherwise prove by a scan; on an empty table it is free, and it is dropped after.
            EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK ("ts" >= %s AND "ts" < %s)', "name", "name" || '_bounds', "from_ts", "to_ts");
            EXECUTE format('ALTER TABLE "events" ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', "name", "from_ts", "to_ts");
            EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', "name", "name" || '_bounds');
        END IF;
    END IF;
    RETURN "name";
END;
$$;

-- What was stored before: one partition per UTC day, the default span, which is recorded for the writers to follow.
INSERT INTO "dupscope_settings" ("name", "value")
    SELECT 'event_partition_ms', '86400000' WHERE EXISTS (SELECT 1 FROM "events_unpartitioned");
SELECT "dupscope_event_partition"('events_p' || to_char(timestamp '1970-01-01' + "day" * interval '1 day', 'YYYYMMDD'), "day" * 86400000, ("day" + 1) * 86400000)
    FROM (SELECT DISTINCT floor("ts" / 86400000.0)::BIGINT AS "day" FROM "events_unpartitioned") AS days;
INSERT INTO "events" SELECT * FROM "events_unpartitioned";
DROP TABLE "events_unpartitioned";

-- The statement triggers went with the old table; the rows moved above were counted and queued when they arrived,
-- so the triggers come back only now.
CREATE TRIGGER "events_enqueue_diagnosis" AFTER INSERT ON "events"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_enqueue_diagnosis"();
CREATE TRIGGER "events_tally_metrics" AFTER INSERT ON "events"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_tally_events"();
CREATE TRIGGER "events_tally_rebalances" AFTER INSERT ON "events"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_rebalances"();

-- What the retention job did, for /api/health and the logs of every server, not only the one that ran it.
CREATE TABLE "retention_runs" (
    "id" BIGSERIAL NOT NULL,
    "ran_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "events_before" BIGINT NOT NULL,
    "verdicts_before" BIGINT NOT NULL,
    "dropped_partitions" TEXT[] NOT NULL,
    "deleted" JSONB NOT NULL,
    "error" TEXT,

    CONSTRAINT "retention_runs_pkey" PRIMARY KEY ("id")
);
