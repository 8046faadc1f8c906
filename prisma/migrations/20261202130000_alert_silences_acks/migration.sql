-- Silences: label matchers over a time range; a matching alert keeps its state and sends nothing. Kept after they
-- end, as the history of who muted what and why (lib/alerts/silences.ts).
CREATE TABLE "alert_silences" (
    "id" TEXT NOT NULL,
    "matchers" JSONB NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "created_by" TEXT NOT NULL,
    "comment" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_silences_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "alert_silences_ends_at_idx" ON "alert_silences"("ends_at");

-- Acknowledgement of a firing alert: who, why, when, and until when (null: until it resolves). It stops repeat
-- notifications; the evaluator clears it when the alert resolves or fires anew (lib/alerts/acks.ts).
ALTER TABLE "alert_states" ADD COLUMN "acked_by" TEXT;
ALTER TABLE "alert_states" ADD COLUMN "ack_comment" TEXT;
ALTER TABLE "alert_states" ADD COLUMN "acked_at" TIMESTAMPTZ(3);
ALTER TABLE "alert_states" ADD COLUMN "ack_until" TIMESTAMPTZ(3);

-- Annotation templates of a rule besides its description (lib/alerts/annotations.ts).
ALTER TABLE "alert_rules" ADD COLUMN "summary" TEXT;
ALTER TABLE "alert_rules" ADD COLUMN "runbook_url" TEXT;
