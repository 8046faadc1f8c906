-- The rule's condition as it was when the rule fired, so the history can be worded in the reader's language
-- (the stored summary is English, as notifications are). Firings recorded before this stay with their summary.
ALTER TABLE "alert_firings" ADD COLUMN "condition" JSONB;
