-- A keyless line no longer queues keys with a lost message and no duplicate again: no rule reads the context of a
-- key without a duplicate (lib/diagnosis/reach.ts, lib/diagnosis-queue/queue.ts), so the index the marks found them
-- by has no reader.
DROP INDEX "key_diagnoses_lost_last_ts_idx";
