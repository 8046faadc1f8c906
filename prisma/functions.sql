-- The current definition of every function the migrations create, and of the triggers that call them: one place to
-- read what the database runs. Migrations stay as they were applied, so a function's live body is in whichever
-- migration replaced it last; the `-- migration:` line above each definition names that one. A migration that
-- adds, changes or drops a function or trigger changes this file with it: tests/integration/sql-functions.test.ts
-- migrates a database, runs this file over it, and fails on any definition the file changes or lacks.
-- This file is not applied: the migrations are.

-- Partitions of events ---------------------------------------------------------------------------------------------

-- A partition of "events", created if missing; the writer names it and gives its bounds (lib/store/partitions.ts).
-- Writers meeting a new partition at once serialise on an advisory lock, and read pg_class with the statement's own
-- snapshot, taken after the lock, so the second finds the first one's table (to_regclass could still miss it). The
-- table is made on its own and then attached: CREATE TABLE … PARTITION OF would lock "events" exclusively, while
-- ATTACH PARTITION takes a lock that reads and writes do not wait for.
-- migration: 20261202090000_partition_create_race
CREATE OR REPLACE FUNCTION "dupscope_event_partition"("name" TEXT, "from_ts" BIGINT, "to_ts" BIGINT) RETURNS TEXT LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_class WHERE relname = "name" AND relnamespace = current_schema()::regnamespace) THEN
        PERFORM pg_advisory_xact_lock(hashtext('dupscope:event-partitions'));
        IF NOT EXISTS (SELECT 1 FROM pg_class WHERE relname = "name" AND relnamespace = current_schema()::regnamespace) THEN
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

-- Metrics counters, kept by statement triggers ---------------------------------------------------------------------

-- Business keys per consumer group, the denominator of duplicate rates. Only keys seen for the first time are in the
-- transition table (the worker's re-diagnosis updates them). The label is built once per group.
-- migration: 20261205090000_slim_key_rollup_rows
CREATE OR REPLACE FUNCTION "dupscope_tally_keys"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "metric_counters" AS c ("name", "labels", "value")
        SELECT 'keys', jsonb_build_object('group', g)::text AS l, n FROM (
            SELECT g, count(*) AS n FROM inserted, unnest("groups") AS g GROUP BY g
        ) AS per_group
        ORDER BY l
        ON CONFLICT ("name", "labels") DO UPDATE SET "value" = c."value" + EXCLUDED."value";
    RETURN NULL;
END;
$$;

-- The worker rewrites a key's verdicts whenever its evidence changes; each rewrite restarts the settle time of the
-- verdicts not yet counted.
-- migration: 20261130130000_alerts
CREATE OR REPLACE FUNCTION "dupscope_pend_verdicts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "metric_verdicts_pending" ("id", "seen_at")
        SELECT i."id", now() FROM inserted i
        WHERE NOT EXISTS (SELECT 1 FROM "metric_verdicts_counted" m WHERE m."id" = i."id")
        ORDER BY i."id"
        ON CONFLICT ("id") DO UPDATE SET "seen_at" = EXCLUDED."seen_at";
    RETURN NULL;
END;
$$;

-- migration: 20261130130000_alerts
CREATE OR REPLACE TRIGGER "key_diagnoses_tally_metrics" AFTER INSERT ON "key_diagnoses"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_tally_keys"();
CREATE OR REPLACE TRIGGER "verdicts_pend_metrics" AFTER INSERT ON "verdicts"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_pend_verdicts"();

-- Rollups of verdicts and keys, kept by statement triggers ---------------------------------------------------------

-- Must match GAP_EDGES in lib/queries/overview.ts (tests/integration/rollups.test.ts compares both paths).
-- migration: 20261130140000_rollups
CREATE OR REPLACE FUNCTION "dupscope_gap_bin"(gap BIGINT) RETURNS SMALLINT LANGUAGE sql IMMUTABLE AS $$
    SELECT width_bucket(abs(gap), ARRAY[1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 60000, 180000, 600000, 1800000, 3600000, 10800000]::bigint[])::smallint
$$;

-- The retention job sets dupscope.rollups_expire_before for its transaction (lib/retention/job.ts) before it deletes
-- expired key diagnoses and verdicts and then the rollup rows of the same minutes: a deleted row whose minute is
-- before it leaves the rollups alone, rather than taking itself out of rows about to be deleted. Other deletes roll.
-- migration: 20261203233000_expired_rollups_left_alone
CREATE OR REPLACE FUNCTION "dupscope_rollups_expire_before"() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('dupscope.rollups_expire_before', true), '')::bigint, 0)
$$;

-- Adds (sign 1) or removes (sign -1) verdicts. A key's verdicts are always written and deleted together
-- (lib/diagnosis-queue/queue.ts), so "its first duplicate" is decided within the rows given.
-- migration: 20261130140000_rollups
CREATE OR REPLACE FUNCTION "dupscope_roll_verdicts"("rows" "verdicts"[], "sign" INTEGER) RETURNS void LANGUAGE sql AS $$
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

-- A key delivered in groups A and B of topic T counts once in (A,T), (B,T), A, B, T and the total: the rows of each
-- scope are generated once per key, with no DISTINCT to sort them (docs/performance.md#the-key-rollups-without-a-sort).
-- A key's groups and topics hold no repeats (lib/diagnosis-queue/queue.ts writes each once).
-- migration: 20261204120000_roll_keys_without_distinct
CREATE OR REPLACE FUNCTION "dupscope_roll_keys"("rows" "key_diagnoses"[], "sign" INTEGER) RETURNS void LANGUAGE sql AS $$
    WITH k AS (
        SELECT (r."last_ts" / 60000) * 60000 AS "minute", r."lost",
               CASE WHEN cardinality(r."groups") = 0 THEN ARRAY['']::text[] ELSE r."groups" END AS "groups",
               CASE WHEN cardinality(r."topics") = 0 THEN ARRAY['']::text[] ELSE r."topics" END AS "topics"
          FROM unnest("rows") AS r
    ), split AS (
        SELECT k."minute", k."lost", 0::smallint AS "scope", g.name AS "g", t.name AS "t"
          FROM k, unnest(k."groups") AS g(name), unnest(k."topics") AS t(name)
        UNION ALL
        SELECT k."minute", k."lost", 1::smallint, g.name, '' FROM k, unnest(k."groups") AS g(name)
        UNION ALL
        SELECT k."minute", k."lost", 2::smallint, '', t.name FROM k, unnest(k."topics") AS t(name)
        UNION ALL
        SELECT k."minute", k."lost", 3::smallint, '', '' FROM k
    )
    INSERT INTO "key_rollups" AS r ("minute", "scope", "group_name", "topic", "keys", "lost")
        SELECT "minute", "scope", "g", "t", "sign" * count(*), "sign" * sum("lost") FROM split
         GROUP BY 1, 2, 3, 4 ORDER BY 2, 3, 4, 1
        ON CONFLICT ("scope", "group_name", "topic", "minute") DO UPDATE SET
            "keys" = r."keys" + EXCLUDED."keys", "lost" = r."lost" + EXCLUDED."lost"
$$;

-- What dupscope_roll_keys reads of a row: the rest is left null (a composite value does not check NOT NULL), so the
-- trigger does not copy each row's diagnosis and plain summary into the array it passes.
-- migration: 20261205090000_slim_key_rollup_rows
CREATE OR REPLACE FUNCTION "dupscope_rollup_row"("biz_key" TEXT, "groups" TEXT[], "topics" TEXT[], "last_ts" BIGINT, "lost" INTEGER)
RETURNS "key_diagnoses" LANGUAGE sql IMMUTABLE AS $$
    SELECT ROW("biz_key", "groups", "topics", NULL, "last_ts", NULL, NULL, "lost", NULL, NULL, NULL, NULL)::"key_diagnoses"
$$;

-- migration: 20261203233000_expired_rollups_left_alone
CREATE OR REPLACE FUNCTION "dupscope_roll_verdicts_trigger"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM "dupscope_roll_verdicts"((SELECT array_agg(n::"verdicts") FROM new_rows n), 1);
    ELSE
        PERFORM "dupscope_roll_verdicts"((SELECT array_agg(o::"verdicts") FROM old_rows o
                                           WHERE (o."second_ts" / 60000) * 60000 >= "dupscope_rollups_expire_before"()), -1);
    END IF;
    RETURN NULL;
END;
$$;

-- An update rolls only the keys whose minute, groups, topics or lost count changed.
-- migration: 20261205090000_slim_key_rollup_rows
CREATE OR REPLACE FUNCTION "dupscope_roll_keys_trigger"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        -- EXECUTE plans the join for the rows at hand: a plan kept from a first, one-row update (a nested loop) took
        -- 190 ms over 1,000 rows.
        EXECUTE $q$
            WITH changed AS (
                SELECT "dupscope_rollup_row"(o."biz_key", o."groups", o."topics", o."last_ts", o."lost") AS old_row,
                       "dupscope_rollup_row"(n."biz_key", n."groups", n."topics", n."last_ts", n."lost") AS new_row
                  FROM old_rows o JOIN new_rows n USING ("biz_key")
                 WHERE (o."last_ts" / 60000, o."groups", o."topics", o."lost") IS DISTINCT FROM (n."last_ts" / 60000, n."groups", n."topics", n."lost")
            )
            SELECT "dupscope_roll_keys"((SELECT array_agg(old_row) FROM changed), -1), "dupscope_roll_keys"((SELECT array_agg(new_row) FROM changed), 1)
        $q$;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM "dupscope_roll_keys"((SELECT array_agg("dupscope_rollup_row"(o."biz_key", o."groups", o."topics", o."last_ts", o."lost")) FROM old_rows o
                                       WHERE (o."last_ts" / 60000) * 60000 >= "dupscope_rollups_expire_before"()), -1);
    ELSE
        PERFORM "dupscope_roll_keys"((SELECT array_agg("dupscope_rollup_row"(n."biz_key", n."groups", n."topics", n."last_ts", n."lost")) FROM new_rows n), 1);
    END IF;
    RETURN NULL;
END;
$$;

-- migration: 20261130140000_rollups
CREATE OR REPLACE TRIGGER "verdicts_roll_insert" AFTER INSERT ON "verdicts"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_verdicts_trigger"();
CREATE OR REPLACE TRIGGER "verdicts_roll_delete" AFTER DELETE ON "verdicts"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_verdicts_trigger"();
CREATE OR REPLACE TRIGGER "key_diagnoses_roll_insert" AFTER INSERT ON "key_diagnoses"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_keys_trigger"();
CREATE OR REPLACE TRIGGER "key_diagnoses_roll_update" AFTER UPDATE ON "key_diagnoses"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_keys_trigger"();
CREATE OR REPLACE TRIGGER "key_diagnoses_roll_delete" AFTER DELETE ON "key_diagnoses"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_roll_keys_trigger"();
