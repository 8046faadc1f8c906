-- Keys whose diagnosis must be (re)computed. Filled by the trigger below, whoever inserts events (server, CLI
-- straight to PostgreSQL, a future collector), and drained by the server's diagnosis worker.
CREATE TABLE "diagnosis_queue" (
    "biz_key" TEXT NOT NULL,
    "enqueued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "diagnosis_queue_pkey" PRIMARY KEY ("biz_key")
);

-- Keyless events (rebalances, lifecycle) change the context of every key of their group around them; the worker
-- expands a mark into the keys of that group and time range.
CREATE TABLE "diagnosis_marks" (
    "id" BIGSERIAL NOT NULL,
    "group_name" TEXT NOT NULL,
    "from_ts" BIGINT NOT NULL,
    "to_ts" BIGINT NOT NULL,

    CONSTRAINT "diagnosis_marks_pkey" PRIMARY KEY ("id")
);

-- The latest diagnosis of each key: counts for every key (the denominators of duplicate rates), the full
-- diagnosis only for keys with something to say.
CREATE TABLE "key_diagnoses" (
    "biz_key" TEXT NOT NULL,
    "groups" TEXT[] NOT NULL,
    "topics" TEXT[] NOT NULL,
    "first_ts" BIGINT NOT NULL,
    "last_ts" BIGINT NOT NULL,
    "duplicates" INTEGER NOT NULL,
    "leaked" INTEGER NOT NULL,
    "lost" INTEGER NOT NULL,
    "normal_retries" INTEGER NOT NULL,
    "diagnosis" JSONB,
    "diagnosed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "key_diagnoses_pkey" PRIMARY KEY ("biz_key")
);

CREATE INDEX "key_diagnoses_last_ts_idx" ON "key_diagnoses"("last_ts");

-- One row per duplicate, for lists, filters and charts.
CREATE TABLE "verdicts" (
    "id" TEXT NOT NULL,
    "biz_key" TEXT NOT NULL,
    "group_name" TEXT,
    "topic" TEXT,
    "cause" TEXT NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "outcome" TEXT NOT NULL,
    "layer" TEXT,
    "defect" TEXT,
    "gap_ms" BIGINT NOT NULL,
    "gap_class" TEXT NOT NULL,
    "first_ts" BIGINT NOT NULL,
    "second_ts" BIGINT NOT NULL,
    "first_instance" TEXT,
    "second_instance" TEXT,
    "same_instance" BOOLEAN NOT NULL,
    "msg_id" TEXT,

    CONSTRAINT "verdicts_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "verdicts_second_ts_idx" ON "verdicts"("second_ts");
CREATE INDEX "verdicts_group_name_second_ts_idx" ON "verdicts"("group_name", "second_ts");
CREATE INDEX "verdicts_biz_key_idx" ON "verdicts"("biz_key");

CREATE FUNCTION "dupscope_enqueue_diagnosis"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "diagnosis_queue" ("biz_key")
        SELECT DISTINCT "biz_key" FROM inserted WHERE "biz_key" IS NOT NULL
        ON CONFLICT DO NOTHING;
    -- A keyless line naming a msgId (client-log timeout, transaction check-back) belongs to that message's keys.
    INSERT INTO "diagnosis_queue" ("biz_key")
        SELECT DISTINCT e."biz_key" FROM inserted i JOIN "events" e ON e."msg_id" = i."msg_id"
        WHERE i."biz_key" IS NULL AND i."msg_id" IS NOT NULL AND e."biz_key" IS NOT NULL
        ON CONFLICT DO NOTHING;
    INSERT INTO "diagnosis_marks" ("group_name", "from_ts", "to_ts")
        SELECT "group_name", min("ts"), max("ts") FROM inserted
        WHERE "biz_key" IS NULL AND "group_name" IS NOT NULL
        GROUP BY "group_name";
    RETURN NULL;
END;
$$;

CREATE TRIGGER "events_enqueue_diagnosis" AFTER INSERT ON "events"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_enqueue_diagnosis"();
