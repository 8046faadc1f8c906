-- Alert rules, their stored state and history, the notification outbox, and the counters /api/metrics exposes.
-- Counters live in the store (not in process memory) so they survive restarts and count what the CLI writes
-- straight to PostgreSQL too; docs/alerts.md explains each one.

-- Where notifications go. `config` holds the channel type's settings (URL, secret, SMTP account).
CREATE TABLE "alert_channels" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_channels_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "alert_channels_name_key" ON "alert_channels"("name");

-- A rule: a condition over a window (lib/alerts/conditions.ts), how long it must hold, and whom to tell.
CREATE TABLE "alert_rules" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "condition" JSONB NOT NULL,
    "for_seconds" INTEGER NOT NULL,
    "repeat_seconds" INTEGER NOT NULL,
    "severity" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "description" TEXT,
    "channel_ids" TEXT[] NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "alert_rules_name_key" ON "alert_rules"("name");

-- The evaluator's memory of each rule: stored, so a restart neither forgets a firing alert nor announces it again.
-- `version` makes each transition a compare-and-set: two servers on one database cannot both notify.
CREATE TABLE "alert_states" (
    "rule_id" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'inactive',
    "active_since" TIMESTAMPTZ(3),
    "last_eval_at" TIMESTAMPTZ(3),
    "last_value" DOUBLE PRECISION,
    "last_notified_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "firing_id" BIGINT,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "alert_states_pkey" PRIMARY KEY ("rule_id"),
    CONSTRAINT "alert_states_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE
);

-- One row per firing episode, from firing to resolved, with the keys that made it fire.
CREATE TABLE "alert_firings" (
    "id" BIGSERIAL NOT NULL,
    "rule_id" TEXT NOT NULL,
    "rule_name" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "keys" TEXT[] NOT NULL,
    "fired_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_firings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_firings_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE
);
CREATE INDEX "alert_firings_fired_at_idx" ON "alert_firings"("fired_at");

-- The outbox: written in the same statement as the transition that caused it, delivered with retries.
CREATE TABLE "alert_notifications" (
    "id" BIGSERIAL NOT NULL,
    "firing_id" BIGINT NOT NULL,
    "rule_id" TEXT NOT NULL,
    "channel_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_notifications_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_notifications_firing_id_fkey" FOREIGN KEY ("firing_id") REFERENCES "alert_firings"("id") ON DELETE CASCADE,
    CONSTRAINT "alert_notifications_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "alert_channels"("id") ON DELETE CASCADE
);
CREATE INDEX "alert_notifications_due_idx" ON "alert_notifications"("next_attempt_at") WHERE "status" = 'pending';
CREATE INDEX "alert_notifications_created_at_idx" ON "alert_notifications"("created_at");

-- Monotonic counters: `labels` is jsonb_build_object(…)::text, one canonical spelling per label set.
CREATE TABLE "metric_counters" (
    "name" TEXT NOT NULL,
    "labels" TEXT NOT NULL,
    "value" BIGINT NOT NULL,

    CONSTRAINT "metric_counters_pkey" PRIMARY KEY ("name", "labels")
);

-- Events stored per source and format: accepted-event counters, ingest lag and silent-source alerts.
CREATE TABLE "ingest_sources" (
    "source" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "events" BIGINT NOT NULL,
    "max_ts" BIGINT NOT NULL,
    "last_ingested_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ingest_sources_pkey" PRIMARY KEY ("source", "format")
);

-- Verdicts written or rewritten recently; counted once they have been left alone for the settle time.
CREATE TABLE "metric_verdicts_pending" (
    "id" TEXT NOT NULL,
    "seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "metric_verdicts_pending_pkey" PRIMARY KEY ("id")
);

-- Verdicts already counted into the duplicate counters: each is counted once, whatever later re-diagnosis does.
CREATE TABLE "metric_verdicts_counted" (
    "id" TEXT NOT NULL,
    "counted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "metric_verdicts_counted_pkey" PRIMARY KEY ("id")
);

-- Collector event ids are "<format>:<32 hex>…" (collectors/fingerprint.ts); anything else, including the server's
-- content hashes ("sha256:…"), arrived as a normalized event.
CREATE FUNCTION "dupscope_event_format"(id TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(nullif(substring(id FROM '^([a-z][a-z0-9-]{0,40}):[0-9a-f]{32}'), 'sha256'), 'events')
$$;

-- The transition table holds only rows really inserted (ON CONFLICT DO NOTHING skips the rest), so re-ingest
-- counts nothing twice. Rows are upserted in one sorted order so concurrent writers cannot deadlock on them.
CREATE FUNCTION "dupscope_tally_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "ingest_sources" AS s ("source", "format", "events", "max_ts", "last_ingested_at")
        SELECT "source", "dupscope_event_format"("id") AS f, count(*), max("ts"), now() FROM inserted
        GROUP BY "source", f ORDER BY "source", f
        ON CONFLICT ("source", "format") DO UPDATE SET "events" = s."events" + EXCLUDED."events",
            "max_ts" = GREATEST(s."max_ts", EXCLUDED."max_ts"), "last_ingested_at" = EXCLUDED."last_ingested_at";
    INSERT INTO "metric_counters" AS c ("name", "labels", "value")
        SELECT n, l, v FROM (
            SELECT 'dedup_decisions' AS n,
                   jsonb_build_object('group', coalesce("group_name", ''), 'layer', coalesce("detail"->>'layer', ''), 'decision', "detail"->>'decision')::text AS l,
                   count(*) AS v
              FROM inserted WHERE "kind" IN ('dedup', 'business_effect') AND "detail" ? 'decision' GROUP BY 1, 2
            UNION ALL
            SELECT 'rebalances', jsonb_build_object('group', coalesce("group_name", ''), 'topic', coalesce("topic", ''))::text, count(*)
              FROM inserted WHERE "kind" = 'rebalance' GROUP BY 1, 2
        ) t ORDER BY n, l
        ON CONFLICT ("name", "labels") DO UPDATE SET "value" = c."value" + EXCLUDED."value";
    RETURN NULL;
END;
$$;

-- Named to sort after events_enqueue_diagnosis: statement triggers fire in name order, so every writer takes the
-- queue's locks before these counters' and two writers never wait on each other in opposite orders.
CREATE TRIGGER "events_tally_metrics" AFTER INSERT ON "events"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_tally_events"();

-- Business keys per consumer group, the denominator of duplicate rates. Only keys seen for the first time are in
-- the transition table (the worker's re-diagnosis updates them).
CREATE FUNCTION "dupscope_tally_keys"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "metric_counters" AS c ("name", "labels", "value")
        SELECT 'keys', jsonb_build_object('group', g)::text AS l, count(*) FROM inserted, unnest("groups") AS g
        GROUP BY l ORDER BY l
        ON CONFLICT ("name", "labels") DO UPDATE SET "value" = c."value" + EXCLUDED."value";
    RETURN NULL;
END;
$$;

CREATE TRIGGER "key_diagnoses_tally_metrics" AFTER INSERT ON "key_diagnoses"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_tally_keys"();

-- The worker rewrites a key's verdicts whenever its evidence changes; each rewrite restarts the settle time of the
-- verdicts not yet counted.
CREATE FUNCTION "dupscope_pend_verdicts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "metric_verdicts_pending" ("id", "seen_at")
        SELECT i."id", now() FROM inserted i
        WHERE NOT EXISTS (SELECT 1 FROM "metric_verdicts_counted" m WHERE m."id" = i."id")
        ORDER BY i."id"
        ON CONFLICT ("id") DO UPDATE SET "seen_at" = EXCLUDED."seen_at";
    RETURN NULL;
END;
$$;

CREATE TRIGGER "verdicts_pend_metrics" AFTER INSERT ON "verdicts"
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION "dupscope_pend_verdicts"();

-- Data stored before this migration is counted as if it had arrived with the triggers in place.
INSERT INTO "ingest_sources" ("source", "format", "events", "max_ts", "last_ingested_at")
    SELECT "source", "dupscope_event_format"("id") AS f, count(*), max("ts"), max("ingested_at") FROM "events" GROUP BY "source", f;
INSERT INTO "metric_counters" ("name", "labels", "value")
    SELECT 'dedup_decisions',
           jsonb_build_object('group', coalesce("group_name", ''), 'layer', coalesce("detail"->>'layer', ''), 'decision', "detail"->>'decision')::text AS l, count(*)
      FROM "events" WHERE "kind" IN ('dedup', 'business_effect') AND "detail" ? 'decision' GROUP BY l
    UNION ALL
    SELECT 'rebalances', jsonb_build_object('group', coalesce("group_name", ''), 'topic', coalesce("topic", ''))::text AS l, count(*)
      FROM "events" WHERE "kind" = 'rebalance' GROUP BY l
    UNION ALL
    SELECT 'keys', jsonb_build_object('group', g)::text AS l, count(*) FROM "key_diagnoses", unnest("groups") AS g GROUP BY l;
INSERT INTO "metric_verdicts_pending" ("id") SELECT "id" FROM "verdicts";
