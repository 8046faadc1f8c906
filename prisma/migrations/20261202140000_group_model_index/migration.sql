-- Rule 3 of lib/diagnosis/scope.ts: a key's diagnosis reads the newest line naming its group's messageModel (the
-- broker's `new consumer connected … BROADCASTING`), however long ago. Only such lines are in this index, so the
-- lookup (lib/queries/diagnosis-input.ts) reads a few rows however many other keyless lines the group has.
CREATE INDEX "events_group_model_idx" ON "events" ("group_name", "ts") WHERE "biz_key" IS NULL AND "detail" ? 'messageModel';
