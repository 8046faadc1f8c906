-- The retention job deletes the key diagnoses and verdicts older than DUPSCOPE_RETENTION_VERDICTS and then the
-- rollup rows of the minutes before the same time. Their delete triggers took each deleted row out of exactly those
-- rollup rows first (in the soak, 58 ms of the 81 ms each delete of 5,000 expired keys took), or, where an earlier
-- run had deleted them, wrote them again with negative counts for the next run to delete. The job sets
-- dupscope.rollups_expire_before for its transaction (lib/retention/job.ts), and a deleted row whose minute is
-- before it leaves the rollups alone; any other delete rolls as before.
CREATE OR REPLACE FUNCTION "dupscope_rollups_expire_before"() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('dupscope.rollups_expire_before', true), '')::bigint, 0)
$$;

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
        PERFORM "dupscope_roll_keys"((SELECT array_agg(o::"key_diagnoses") FROM old_rows o
                                       WHERE (o."last_ts" / 60000) * 60000 >= "dupscope_rollups_expire_before"()), -1);
    ELSE
        PERFORM "dupscope_roll_keys"((SELECT array_agg(n::"key_diagnoses") FROM new_rows n), 1);
    END IF;
    RETURN NULL;
END;
$$;

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
