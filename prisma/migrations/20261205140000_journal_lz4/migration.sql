-- A journal row holds a batch's summary (~325 KB of json) and its keys (~17 KB), written once, read once by the fold,
-- then deleted. PostgreSQL compressed them with pglz, ~3% of its CPU at 48,000 events/s; with lz4 a row is written
-- in about half the time and stored ~1.5 times as large (docs/performance.md#lz4-for-the-journal). Only values written
-- from now on use it; nothing is rewritten. A server built without lz4 (PGlite is one) refuses the method, and keeps
-- pglz.
DO $$
BEGIN
  ALTER TABLE "ingest_journal" ALTER COLUMN "batch" SET COMPRESSION lz4, ALTER COLUMN "keys" SET COMPRESSION lz4,
    ALTER COLUMN "keys_from" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not built into this server: the journal keeps pglz';
END $$;
