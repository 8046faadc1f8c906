-- A group's state over time, kept apart from the raw events (lib/diagnosis/members.ts, docs/diagnosis.md "Group state
-- over time"): consumers log their connect once and stay for weeks, while events are kept for days. Both tables grow
-- with members and their changes, never with messages, and both are keyed by group first, so they distribute by
-- group_name.
--
-- group_member_changes: every stored line that opened or closed a membership (a broker's connect, unregister or
-- channel drop, a client's start or shutdown, a Kafka join or leave, a RabbitMQ consumer created or deleted), as the
-- ingest journal's fold reads it from the line. The event id makes a line ingested twice one row.
CREATE TABLE "group_member_changes" (
    "group_name" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "coarse" BOOLEAN NOT NULL DEFAULT false,
    "change" TEXT NOT NULL,
    "member" TEXT,
    "instance" TEXT,
    "via" TEXT NOT NULL DEFAULT '',
    "remote" TEXT,
    "model" TEXT,
    "broker" TEXT NOT NULL,
    CONSTRAINT "group_member_changes_pkey" PRIMARY KEY ("group_name", "event_id")
);

-- The retention job finds the groups with changes older than its cutoff through this.
CREATE INDEX "group_member_changes_ts_idx" ON "group_member_changes" ("ts");

-- group_members: the intervals foldMembers makes of a group's changes, rewritten for a group whenever its changes
-- change. `n` is the interval's position in the group's fold.
CREATE TABLE "group_members" (
    "group_name" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "member" TEXT NOT NULL,
    "instance" TEXT,
    -- The host the connection came from (lib/diagnosis/members.ts memberHost): a key reads its hosts' connections.
    "host" TEXT,
    "via" TEXT NOT NULL DEFAULT '',
    "remote" TEXT,
    "model" TEXT,
    "broker" TEXT NOT NULL,
    "since_ts" BIGINT,
    "since_event" TEXT,
    "since_coarse" BOOLEAN NOT NULL DEFAULT false,
    "until_ts" BIGINT,
    "until_event" TEXT,
    "closed_by" TEXT,
    CONSTRAINT "group_members_pkey" PRIMARY KEY ("group_name", "n")
);

-- The group page reads a group's intervals still open after the start of its range: by group, from an end.
CREATE INDEX "group_members_until_idx" ON "group_members" ("group_name", "until_ts");
-- A key's lookup reads those of its groups and its hosts: a group of a hundred consumers has hundreds open at once.
CREATE INDEX "group_members_host_idx" ON "group_members" ("group_name", "host", "until_ts");
-- and the newest interval that names the group's message model, begun before its last delivery.
CREATE INDEX "group_members_model_idx" ON "group_members" ("group_name", "since_ts") WHERE "model" IS NOT NULL;

-- The model lines were found among the raw events through this index (scope.ts rule 3); the intervals replace it.
DROP INDEX IF EXISTS "events_group_model_idx";
