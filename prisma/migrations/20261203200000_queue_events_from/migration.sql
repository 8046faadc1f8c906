-- How far back a queued key's events can have changed, so that a worker reads only the partitions from there on
-- (lib/diagnosis-queue/queue.ts, eventsBounds). A journal row keeps the earliest time of each key's events in its batch,
-- beside "keys"; the queue keeps the earliest of what its key was queued for. NULL in either means "from any time":
-- rows written before this migration, and keys queued by marks or by another event's msgId.
ALTER TABLE "ingest_journal" ADD COLUMN "keys_from" BIGINT[];
ALTER TABLE "diagnosis_queue" ADD COLUMN "since_ts" BIGINT;
