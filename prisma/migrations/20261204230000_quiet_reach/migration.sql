-- A verdict's quiet reach: how late a keyless line that gives no queue up (not a removal, a dropped queue or a
-- rebalance result) can be stamped and still change its key's diagnosis (lib/diagnosis/reach.ts). A mark of such
-- lines only (diagnosis_marks.loud false) queues a key again up to it instead of up to its reach: a busy group's
-- rebalance lines are mostly queues added, and each of them used to queue every duplicate of the group's last twenty
-- seconds or so again (docs/performance.md#quiet-marks). Null, in rows written before: the reach, which is never
-- earlier; the index orders by that, so existing rows need no rewrite.
ALTER TABLE "verdicts" ADD COLUMN "quiet_reach_ts" BIGINT;
CREATE INDEX "verdicts_group_name_quiet_reach_idx" ON "verdicts" ("group_name", (COALESCE("quiet_reach_ts", "reach_ts")));

-- Whether one of a mark's lines gives a queue up; marks taken before this change are, to be safe.
ALTER TABLE "diagnosis_marks" ADD COLUMN "loud" BOOLEAN NOT NULL DEFAULT true;
