-- The overview's "lost messages" opens the keys that lost one (/lost), newest last event first. Such keys are a few
-- in thousands, so paging them along key_diagnoses_last_ts_idx would walk a busy week's every key to find a page;
-- this index holds only them, in the order the page lists them.
CREATE INDEX "key_diagnoses_lost_last_ts_idx" ON "key_diagnoses" ("last_ts", "biz_key") WHERE "lost" > 0;
