-- Two writers meeting a missing partition at once: the second one, once it held the lock, still found no table by
-- to_regclass (its catalog cache had not taken in the first one's commit: an advisory lock does not make a backend
-- read invalidations) and failed with "relation … already exists". pg_class is read with the statement's own
-- snapshot instead, taken after the lock, so the second writer sees the first one's table.
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
