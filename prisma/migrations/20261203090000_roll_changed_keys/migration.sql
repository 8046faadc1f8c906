-- The diagnosis worker rewrites a key's row each time it diagnoses the key again (new events, a rebalance line
-- nearby), and nearly always the row keeps what key_rollups counts it by: the minute of its last event, its groups,
-- topics and lost messages. Taking each such row out of its rollup rows and putting it back was half of a 1,000-key
-- save (docs/performance.md): an update now rolls only the keys whose rollup fields changed (old and new rows meet on biz_key, which no
-- update changes).
CREATE OR REPLACE FUNCTION "dupscope_roll_keys_trigger"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        -- EXECUTE plans the join for the rows at hand: a plan kept from a first, one-row update (a nested loop) took
        -- 190 ms over 1,000 rows.
        EXECUTE $q$
            WITH changed AS (
                SELECT o::"key_diagnoses" AS old_row, n::"key_diagnoses" AS new_row FROM old_rows o JOIN new_rows n USING ("biz_key")
                 WHERE (o."last_ts" / 60000, o."groups", o."topics", o."lost") IS DISTINCT FROM (n."last_ts" / 60000, n."groups", n."topics", n."lost")
            )
            SELECT "dupscope_roll_keys"((SELECT array_agg(old_row) FROM changed), -1), "dupscope_roll_keys"((SELECT array_agg(new_row) FROM changed), 1)
        $q$;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM "dupscope_roll_keys"((SELECT array_agg(o::"key_diagnoses") FROM old_rows o), -1);
    ELSE
        PERFORM "dupscope_roll_keys"((SELECT array_agg(n::"key_diagnoses") FROM new_rows n), 1);
    END IF;
    RETURN NULL;
END;
$$;
