-- The primary key leads with "ts" instead of "id". Events arrive in about the order of their time, so each insert
-- now lands on the rightmost pages of the key's index, where the last ones did; led by "id", a hash, each went to a
-- page picked at random, which a partition of a busy day no longer holds in memory. The key is still the pair:
-- idempotency and ON CONFLICT ("id", "ts") are unchanged (docs/event-model.md#identity). PostgreSQL rebuilds the
-- index of every partition: on a large store this migration takes as long as building one index over its events.
ALTER TABLE "events" DROP CONSTRAINT "events_pkey";
ALTER TABLE "events" ADD CONSTRAINT "events_pkey" PRIMARY KEY ("ts", "id");

-- The one lookup by id alone: an event whose time is not in its record is stored only if no partition holds its
-- id (lib/store/events-repo.ts). Such events say so in their detail, and only they are indexed by id.
CREATE INDEX "events_borrowed_time_id_idx" ON "events" ("id") WHERE "detail" ? 'timeFrom' OR "detail" ? 'dateFrom';
