-- A rule evaluates per label set: `group_by` names the labels (group, topic, cause, defect, source) whose values
-- split its measurement, and each value set is an alert of its own with its own state and firings. A rule without
-- group_by keeps one state row, series '' with no labels, as before.
ALTER TABLE "alert_rules" ADD COLUMN "group_by" TEXT[] NOT NULL DEFAULT '{}';

-- `series` is the label set in canonical form (lib/alerts/series.ts): the state's key within its rule.
ALTER TABLE "alert_states" ADD COLUMN "series" TEXT NOT NULL DEFAULT '';
ALTER TABLE "alert_states" ADD COLUMN "labels" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "alert_states" DROP CONSTRAINT "alert_states_pkey";
ALTER TABLE "alert_states" ADD CONSTRAINT "alert_states_pkey" PRIMARY KEY ("rule_id", "series");

ALTER TABLE "alert_firings" ADD COLUMN "labels" JSONB NOT NULL DEFAULT '{}';

-- The channel type `alertmanager` now talks to Alertmanager's API (POST /api/v2/alerts). Channels made before
-- posted Alertmanager's webhook payload to a receiver; they keep doing exactly that under the type's new name.
UPDATE "alert_channels" SET "type" = 'alertmanager_webhook' WHERE "type" = 'alertmanager';
