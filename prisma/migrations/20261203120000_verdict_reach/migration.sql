-- How late a keyless line of a verdict's group can be stamped and still change its key's diagnosis
-- (lib/diagnosis/reach.ts). A rebalance or lifecycle line queues a key again only up to it, instead of up to the end
-- of the key's context: a busy group logs such a line every second or so, and each queued every duplicate of the
-- group's last five minutes again (docs/performance.md). Rows written before this change keep the old bound: their
-- second delivery, a minute for the key's later events, and the three minutes a key's context reaches past them.
ALTER TABLE "verdicts" ADD COLUMN "reach_ts" BIGINT;
UPDATE "verdicts" SET "reach_ts" = "second_ts" + 240000;
ALTER TABLE "verdicts" ALTER COLUMN "reach_ts" SET NOT NULL;

CREATE INDEX "verdicts_group_name_reach_ts_idx" ON "verdicts"("group_name", "reach_ts");
