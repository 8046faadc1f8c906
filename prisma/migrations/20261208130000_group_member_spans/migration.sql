-- Members known from their consumer spans (lib/diagnosis/members.ts, SPANS_VIA): every span of a consumer names its
-- process and group, and keeping each as a change would grow the table with messages. seen_hour is the hour of a
-- `seen` change (NULL for any other); the store keeps one per group, member, process and hour, the earliest span.
ALTER TABLE "group_member_changes" ADD COLUMN "seen_hour" BIGINT;

CREATE UNIQUE INDEX "group_member_changes_seen_idx" ON "group_member_changes" ("group_name", "member", "instance", "seen_hour")
  WHERE "seen_hour" IS NOT NULL;
