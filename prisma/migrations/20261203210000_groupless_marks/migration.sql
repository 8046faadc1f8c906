-- A keyless line without a group (a producer's resend, a client's start or shutdown) is context of the keys from its
-- host (lib/diagnosis/scope.ts), but it left no mark: arriving after those keys were diagnosed, it changed nothing
-- stored, and a duplicate it explains stayed "unknown" in lists and charts. Its mark has no group and queues the keys
-- with a duplicate of any group within reach (lib/diagnosis-queue/queue.ts), found by their reach.
ALTER TABLE "diagnosis_marks" ALTER COLUMN "group_name" DROP NOT NULL;
CREATE INDEX "verdicts_reach_ts_idx" ON "verdicts" ("reach_ts");
