-- A queued key's row is inserted by the fold, updated by the claim (claimed_by, claimed_until, dirty: no indexed
-- column) and deleted. On a full page the claim's new version went to another page, with an entry in each index for
-- each of a step's 1,000 keys; with room left on the page it is a heap-only update. The claim takes keys in
-- (enqueued_at, biz_key) order: with the key in the index it reads the 1,000 it takes, not all of the keys a fold
-- queued at one time, sorted (docs/performance.md).
ALTER TABLE "diagnosis_queue" SET (fillfactor = 50);
DROP INDEX "diagnosis_queue_enqueued_at_idx";
CREATE INDEX "diagnosis_queue_enqueued_at_biz_key_idx" ON "diagnosis_queue" ("enqueued_at", "biz_key");
