-- Rollups for the overview: per-minute counts kept current by triggers, so a 7-day chart sums a few thousand rows
-- instead of reading every verdict, key and rebalance line of the week (lib/queries/overview.ts, docs/dashboard.md).
--
-- "scope" says which of the two filter dimensions a row is split by; the other is '' and summed over:
--   0 = group and topic, 1 = group only, 2 = topic only, 3 = neither.
-- Each key is counted once per row of its scope, so "keys with a duplicate in group G" is a sum, not a distinct
-- count over raw rows.

-- Duplicates by the minute of the second consumption (verdicts.second_ts).
CREATE TABLE "duplicate_rollups" (
    "minute" BIGINT NOT NULL,
    "scope" SMALLINT NOT NULL,
    "group_name" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "cause" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "layer" TEXT NOT NULL,
    "gap_bin" SMALLINT NOT NULL,
    "duplicates" INTEGER NOT NULL,
    -- Verdicts that are their key's first duplicate in this row's group/topic split: sums to distinct keys.
    "key_firsts" INTEGER NOT NULL,
    -- The same, per cause: distinct keys with a duplicate of this cause.
    "cause_key_firsts" INTEGER NOT NULL,

    CONSTRAINT "duplicate_rollups_pkey" PRIMARY KEY ("scope", "group_name", "topic", "minute", "cause", "outcome", "layer", "gap_bin")
);

-- Diagnosed keys by the minute of their last event (key_diagnoses.last_ts): the denominators of duplicate rates.
CREATE TABLE "key_rollups" (
    "minute" BIGINT NOT NULL,
    "scope" SMALLINT NOT NULL,
    "group_name" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "keys" INTEGER NOT NULL,
    "lost" INTEGER NOT NULL,

    CONSTRAINT "key_rollups_pkey" PRIMARY KEY ("scope", "group_name", "topic", "minute")
);

-- Rebalance lines that change ownership, per group, topic and 10-second slot: every member logs its part of one
-- rebalance within seconds, so a slot with lines is one rebalance episode (lib/queries/overview.ts EPISODE_MS).
CREATE TABLE "rebalance_rollups" (
    "slot" BIGINT NOT NULL,
    "group_name" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "lines" INTEGER NOT NULL,

    CONSTRAINT "rebalance_rollups_pkey" PRIMARY KEY ("group_name", "slot", "topic")
);

CREATE INDEX "rebalance_rollups_slot_idx" ON "rebalance_rollups"("slot");

-- The newest leaks without walking past every caught duplicate; the search box's offsetMsgId without a scan; a
-- key's keyless context per group and time range (lib/store/diagnosis-input.ts) without the other groups' lines.
CREATE INDEX "verdicts_leaked_second_ts_idx" ON "verdicts"("second_ts") WHERE "outcome" = 'leaked';
CREATE INDEX "events_offset_msg_id_idx" ON "events"("offset_msg_id") WHERE "offset_msg_id" IS NOT NULL;
CREATE INDEX "events_keyless_group_ts_idx" ON "events"("group_name", "ts") WHERE "biz_key" IS NULL;

-- Must match GAP_EDGES in lib/queries/overview.ts (tests/integration/rollups.test.ts compares both paths).
CREATE FUNCTION "dupscope_gap_bin"(gap BIGINT) RETURNS SMALLINT LANGUAGE sql IMMUTABLE AS $$
    SELECT width_bucket(abs(gap), ARRAY[1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 60000, 180000, 600000, 1800000, 3600000, 10800000]::bigint[])::smallint
$$;

-- Adds (sign 1) or removes (sign -1) verdicts. A key's verdicts are always written and deleted together
-- (lib/store/diagnoses.ts), so "its first duplicate" is decided within the rows given.
CREATE FUNCTION "dupscope_roll_verdicts"("rows" "verdicts"[], "sign" INTEGER) RETURNS void LANGUAGE sql AS $$
    WITH v AS (
        SELECT r.*, (r."second_ts" / 60000) * 60000 AS "minute" FROM unnest("rows") AS r
    ), split AS (
        SELECT v.*, s."scope", s."g", s."t" FROM v CROSS JOIN LATERAL (VALUES
            (0::smallint, coalesce(v."group_name", ''), coalesce(v."topic", '')),
            (1::smallint, coalesce(v."group_name", ''), ''),
            (2::smallint, '', coalesce(v."topic", '')),
            (3::smallint, '', '')) AS s("scope", "g", "t")
    ), ranked AS (
        SELECT split.*,
               row_number() OVER (PARTITION BY "scope", "g", "t", "biz_key" ORDER BY "second_ts", "id") = 1 AS "key_first",
               row_number() OVER (PARTITION BY "scope", "g", "t", "cause", "biz_key" ORDER BY "second_ts", "id") = 1 AS "cause_key_first"
          FROM split
    )
    INSERT INTO "duplicate_rollups" AS d
        ("minute", "scope", "group_name", "topic", "cause", "outcome", "layer", "gap_bin", "duplicates", "key_firsts", "cause_key_firsts")
        SELECT "minute", "scope", "g", "t", "cause", "outcome", coalesce("layer", ''), "dupscope_gap_bin"("gap_ms"),
               "sign" * count(*), "sign" * count(*) FILTER (WHERE "key_first"), "sign" * count(*) FILTER (WHERE "cause_key_first")
          FROM ranked GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 ORDER BY 2, 3, 4, 1, 5, 6, 7, 8
        ON CONFLICT ("scope", "group_name", "topic", "minute", "cause", "outcome", "layer", "gap_bin") DO UPDATE SET
            "duplicates" = d."duplicates" + EXCLUDED."duplicates",
            "key_firsts" = d."key_firsts" + EXCLUDED."key_firsts",
            "cause_key_firsts" = d."cause_key_firsts" + EXCLUDED."cause_key_firsts"
$$;

-- A key delivered in groups A and B of topic T counts once in (A,T), (B,T), A, B, T and the total.
CREATE FUNCTION "dupscope_roll_keys"("rows" "key_diagnoses"[], "sign" INTEGER) RETURNS void LANGUAGE sql AS $$
    WITH k AS (
        SELECT r."biz_key", (r."last_ts" / 60000) * 60000 AS "minute", r."lost",
               CASE WHEN cardinality(r."groups") = 0 THEN ARRAY['']::text[] ELSE r."groups" END AS "groups",
               CASE WHEN cardinality(r."topics") = 0 THEN ARRAY['']::text[] ELSE r."topics" END AS "topics"
          FROM unnest("rows") AS r
    ), split AS (
        SELECT DISTINCT k."biz_key", k."minute", k."lost", s."scope", s."g", s."t"
          FROM k, unnest(k."groups") AS g(name), unnest(k."topics") AS t(name),
               LATERAL (VALUES (0::smallint, g.name, t.name), (1::smallint, g.name, ''), (2::smallint, '', t.name), (3::smallint, '', '')) AS s("scope", "g", "t")
    )
    INSERT INTO "key_rollups" AS r ("minute", "scope", "group_name", "topic", "keys", "lost")
        SELECT "minute", "scope", "g", "t", "sign" * count(*), "sign" * sum("lost") FROM split
         GROUP BY 1, 2, 3, 4 ORDER BY 2, 3, 4, 1
        ON CONFLICT ("scope", "group_name", "topic", "minute") DO UPDATE SET
            "keys" = r."keys" + EXCLUDED."keys", "lost" = r."lost" + EXCLUDED."lost"
$$;

CREATE FUNCTION "dupscope_roll_verdicts_trigger"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM "dupscope_roll_verdicts"((SELECT array_agg(n::"verdicts") FROM new_rows n), 1);
    ELSE
        PERFORM "dupscope_roll_verdicts"((SELECT array_agg(o::"verdicts") FROM old_rows o), -1);
    END IF;
    RETURN NULL;
END;
$$;

CREATE FUNCTION "dupscope_roll_keys_trigger"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM "dupscope_roll_keys"((SELECT array_agg(o::"key_diagnoses") FROM old_rows o), -1);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        PERFORM "dupscope_roll_keys"((SELECT array_agg(n::"key_diagnoses") FROM new_rows n), 1);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "verdicts_roll_insert" AFTER INSERT ON "verdicts"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_verdicts_trigger"();
CREATE TRIGGER "verdicts_roll_delete" AFTER DELETE ON "verdicts"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_verdicts_trigger"();
CREATE TRIGGER "key_diagnoses_roll_insert" AFTER INSERT ON "key_diagnoses"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_keys_trigger"();
CREATE TRIGGER "key_diagnoses_roll_update" AFTER UPDATE ON "key_diagnoses"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_keys_trigger"();
CREATE TRIGGER "key_diagnoses_roll_delete" AFTER DELETE ON "key_diagnoses"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_keys_trigger"();

-- Must match OWNERSHIP_ACTIONS in lib/queries/overview.ts.
CREATE FUNCTION "dupscope_roll_rebalances"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "rebalance_rollups" AS r ("slot", "group_name", "topic", "lines")
        SELECT ("ts" / 10000) * 10000 AS s, "group_name", coalesce("topic", '') AS t, count(*) FROM inserted
         WHERE "kind" = 'rebalance' AND "group_name" IS NOT NULL
           AND "detail"->>'action' IN ('result', 'add', 'remove', 'assign', 'revoke', 'lost', 'dropped_without_result')
         GROUP BY 1, 2, 3 ORDER BY 2, 1, 3
        ON CONFLICT ("group_name", "slot", "topic") DO UPDATE SET "lines" = r."lines" + EXCLUDED."lines";
    RETURN NULL;
END;
$$;

-- Named to sort after events_enqueue_diagnosis and events_tally_metrics (statement triggers fire in name order),
-- so every writer takes locks in the same order.
CREATE TRIGGER "events_tally_rebalances" AFTER INSERT ON "events"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_rebalances"();

-- What was stored before this migration, rolled up as if the triggers had been there.
SELECT "dupscope_roll_verdicts"(array_agg(v), 1) FROM "verdicts" v HAVING count(*) > 0;
SELECT "dupscope_roll_keys"(array_agg(k), 1) FROM "key_diagnoses" k HAVING count(*) > 0;
INSERT INTO "rebalance_rollups" ("slot", "group_name", "topic", "lines")
    SELECT ("ts" / 10000) * 10000, "group_name", coalesce("topic", ''), count(*) FROM "events"
     WHERE "kind" = 'rebalance' AND "group_name" IS NOT NULL
       AND "detail"->>'action' IN ('result', 'add', 'remove', 'assign', 'revoke', 'lost', 'dropped_without_result')
     GROUP BY 1, 2, 3;
