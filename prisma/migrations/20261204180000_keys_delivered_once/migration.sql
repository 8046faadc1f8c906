-- A key delivered once is written by the ingest journal's fold from a summary of its events, without a diagnosis
-- worker reading them back (lib/diagnosis/plain.ts, lib/store/plain-keys.ts). The summary's fields that the row's
-- columns do not hold already are kept here, so that the key's later events can be merged into it; a row a worker
-- wrote has none.
ALTER TABLE "key_diagnoses" ADD COLUMN "plain" JSONB;
