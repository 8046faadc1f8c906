-- Every msgId lookup asks for keyed rows (search, the journal's keyless lines finding their key) or keyless ones (a
-- key's diagnosis reading the lines that name its msgIds, lib/queries/diagnosis-input.ts), never both. With one
-- index over all rows, each keyless probe fetched the message's keyed rows (four in the soak's stream) from the
-- heap only to filter them out, in every partition. Two partial indexes hold the same rows between them, less the
-- keyless rows without a msgId (most keyless lines), which no lookup asks for. The keyed one keeps its nulls: the
-- journal's lookup is `msg_id = ANY($2)`, from which the planner cannot prove `msg_id IS NOT NULL`.
DROP INDEX "events_msg_id_idx";
CREATE INDEX "events_keyed_msg_id_idx" ON "events" ("msg_id") WHERE "biz_key" IS NOT NULL;
CREATE INDEX "events_keyless_msg_id_idx" ON "events" ("msg_id") WHERE "biz_key" IS NULL AND "msg_id" IS NOT NULL;
