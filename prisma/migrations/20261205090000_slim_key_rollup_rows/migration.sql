-- Two statement triggers of key_diagnoses, cheaper for the fold's insert of keys delivered once (a thousand rows and
-- more a statement; docs/performance.md#slimmer-key-triggers):
-- * the count of keys per group built its label, a jsonb object printed to text, once per key and group before
--   grouping; it is now built once per group;
-- * the rollup trigger passed whole rows to dupscope_roll_keys, copying each row's diagnosis and plain summary
--   (jsonb) into an array for a function that reads four columns; it now passes rows holding only those four (and
--   the key), the others null. dupscope_roll_keys is unchanged.
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

-- What dupscope_roll_keys reads of a row: the rest is left null (a composite value does not check NOT NULL).
CREATE OR REPLACE FUNCTION "dupscope_rollup_row"("biz_key" TEXT, "groups" TEXT[], "topics" TEXT[], "last_ts" BIGINT, "lost" INTEGER)
RETURNS "key_diagnoses" LANGUAGE sql IMMUTABLE AS $$
    SELECT ROW("biz_key", "groups", "topics", NULL, "last_ts", NULL, NULL, "lost", NULL, NULL, NULL, NULL)::"key_diagnoses"
$$;

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
