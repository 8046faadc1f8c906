-- A key whose diagnosis found nothing (no duplicate, no lost message: diagnosis is null), nearly every key, is
-- forgotten with its raw events instead of kept for the verdicts' retention (lib/retention/job.ts): 90 days of a row
-- per key was more than the events themselves at production rates (docs/deploy.md#retention). The retention job
-- finds them oldest first along this index, which holds no key with a finding, so a run never walks past the keys
-- with findings that stay.
CREATE INDEX "key_diagnoses_unfound_last_ts_idx" ON "key_diagnoses" ("last_ts") WHERE "diagnosis" IS NULL;
