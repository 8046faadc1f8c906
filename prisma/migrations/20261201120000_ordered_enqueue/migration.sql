-- Two writers whose batches share business keys (one OTLP exporter's send spans, another's process spans of the
-- same messages; two CLI ingests of overlapping files) inserted the keys into diagnosis_queue in whatever order
-- their rows came, so each could hold a key's index lock the other waited for: "deadlock detected" (40P01) and a
-- lost batch. One insert, in key order, takes the locks in the same order in every writer.
CREATE OR REPLACE FUNCTION "dupscope_enqueue_diagnosis"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "diagnosis_queue" ("biz_key")
        SELECT "key" FROM (
            SELECT "biz_key" AS "key" FROM inserted WHERE "biz_key" IS NOT NULL
            UNION
            -- A keyless line naming a msgId (client-log timeout, transaction check-back) belongs to that message's keys.
            SELECT e."biz_key" FROM inserted i JOIN "events" e ON e."msg_id" = i."msg_id"
            WHERE i."biz_key" IS NULL AND i."msg_id" IS NOT NULL AND e."biz_key" IS NOT NULL
        ) AS keys
        ORDER BY "key"
        ON CONFLICT DO NOTHING;
    INSERT INTO "diagnosis_marks" ("group_name", "from_ts", "to_ts")
        SELECT "group_name", min("ts"), max("ts") FROM inserted
        WHERE "biz_key" IS NULL AND "group_name" IS NOT NULL
        GROUP BY "group_name";
    RETURN NULL;
END;
$$;
