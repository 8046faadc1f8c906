-- Which member held which queue or partition of a group over time, kept apart from the raw events like the members
-- (lib/diagnosis/holdings.ts, docs/diagnosis.md "Group state over time"): a consumer logs taking a queue once and may
-- hold it for weeks, while events are kept for days. Both tables grow with members and their rebalances, never with
-- messages, and both are keyed by group first, so they distribute by group_name.
--
-- group_holding_changes: every stored line that took, gave up or lost a queue, or stated an instance's whole set of
-- queues of a topic (`queues`), as the ingest journal's fold reads it from the line. The event id makes a line
-- ingested twice one row.
CREATE TABLE "group_holding_changes" (
    "group_name" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "coarse" BOOLEAN NOT NULL DEFAULT false,
    "change" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "topic" TEXT,
    "queue" TEXT,
    "queues" TEXT[],
    CONSTRAINT "group_holding_changes_pkey" PRIMARY KEY ("group_name", "event_id")
);

-- The retention job finds the groups with changes older than its cutoff through this.
CREATE INDEX "group_holding_changes_ts_idx" ON "group_holding_changes" ("ts");

-- group_holdings: the intervals foldHoldings makes of a group's changes and its members' closes, rewritten for a group
-- whenever either changes. `n` is the interval's position in the group's fold.
CREATE TABLE "group_holdings" (
    "group_name" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "topic" TEXT NOT NULL,
    "queue" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "since_ts" BIGINT,
    "since_event" TEXT,
    "since_coarse" BOOLEAN NOT NULL DEFAULT false,
    "until_ts" BIGINT,
    "until_event" TEXT,
    "closed_by" TEXT,
    CONSTRAINT "group_holdings_pkey" PRIMARY KEY ("group_name", "n")
);

-- A key's lookup reads the holdings of the queues it was delivered from, open or ended after its span began.
CREATE INDEX "group_holdings_queue_idx" ON "group_holdings" ("group_name", "topic", "queue", "until_ts");
