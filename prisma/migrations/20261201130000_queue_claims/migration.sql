-- Several dupscope servers drain one diagnosis queue. A worker claims a batch of keys for a lease instead of
-- deleting them: the keys stay queued until their diagnosis is saved, so a worker killed mid-step loses nothing
-- (its claims expire and another worker takes them), and no key is diagnosed by two workers at once while its
-- lease runs. An event arriving for a claimed key marks it dirty: the worker then releases it for another pass
-- instead of dropping it, so the new event is not missed.
ALTER TABLE "diagnosis_queue"
    ADD COLUMN "claimed_by" TEXT,
    ADD COLUMN "claimed_until" TIMESTAMPTZ(3),
    ADD COLUMN "dirty" BOOLEAN NOT NULL DEFAULT false;

CREATE INDEX "diagnosis_queue_enqueued_at_idx" ON "diagnosis_queue" ("enqueued_at");

CREATE OR REPLACE FUNCTION "dupscope_enqueue_diagnosis"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- In key order, so writers sharing keys take the queue's row locks in the same order (no deadlock).
    INSERT INTO "diagnosis_queue" ("biz_key")
        SELECT "key" FROM (
            SELECT "biz_key" AS "key" FROM inserted WHERE "biz_key" IS NOT NULL
            UNION
            -- A keyless line naming a msgId (client-log timeout, transaction check-back) belongs to that message's keys.
            SELECT e."biz_key" FROM inserted i JOIN "events" e ON e."msg_id" = i."msg_id"
            WHERE i."biz_key" IS NULL AND i."msg_id" IS NOT NULL AND e."biz_key" IS NOT NULL
        ) AS keys
        ORDER BY "key"
        ON CONFLICT ("biz_key") DO UPDATE SET "dirty" = true WHERE "diagnosis_queue"."claimed_by" IS NOT NULL;
    INSERT INTO "diagnosis_marks" ("group_name", "from_ts", "to_ts")
        SELECT "group_name", min("ts"), max("ts") FROM inserted
        WHERE "biz_key" IS NULL AND "group_name" IS NOT NULL
        GROUP BY "group_name";
    RETURN NULL;
END;
$$;
