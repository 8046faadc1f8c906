-- The server's probe job (lib/probe/job.ts, docs/probe.md) remembers which keys it has looked up in a business
-- table, and for which set of duplicates: a probe that finds no row stores no event, so the events alone cannot
-- tell a key that was probed from one that was not. A key is probed again only when its duplicates change.
CREATE TABLE "probe_runs" (
    "probe" TEXT NOT NULL,
    "biz_key" TEXT NOT NULL,
    "verdict_set" TEXT NOT NULL,
    "probed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "probe_runs_pkey" PRIMARY KEY ("probe", "biz_key")
);
