-- A store that held keyless group lines before it kept the groups' state (…_group_members, …_group_holdings) has
-- connects, closes and queue changes the ingest journal never read. This marks it; the retention job reads those
-- lines into group_member_changes and group_holding_changes once, before it drops any partition, and clears the mark
-- (lib/store/group-state-backfill.ts). A store without such lines needs nothing.
INSERT INTO "dupscope_settings" ("name", "value")
    SELECT 'group_state_backfill', 'pending' WHERE EXISTS (SELECT 1 FROM "events" WHERE "biz_key" IS NULL AND "group_name" IS NOT NULL)
    ON CONFLICT ("name") DO NOTHING;
