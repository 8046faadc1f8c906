-- The (group_name, ts) index over every event served two alert measures only (lib/alerts/measure.ts): a group's
-- rebalance lines, and its dedup hits. Every stored event paid for it, a publish or a consume trace as much as the
-- rare line those measures count: one btree insert of the nine each row made, ~6-10% of a batch's write
-- (docs/performance.md#alert-indexes-of-the-lines-they-count). Two partial indexes hold just those lines; a key's
-- context and the group pages read keyless lines through events_keyless_group_ts_idx, as before.
DROP INDEX "events_group_name_ts_idx";
CREATE INDEX "events_rebalance_group_ts_idx" ON "events" ("group_name", "ts") WHERE "kind" = 'rebalance';
CREATE INDEX "events_dedup_hit_group_ts_idx" ON "events" ("group_name", "ts") WHERE "kind" = 'dedup' AND "detail"->>'decision' = 'hit';
