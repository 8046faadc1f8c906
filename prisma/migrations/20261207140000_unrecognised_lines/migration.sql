-- Skipped lines that carry a relevance anchor (collectors/codecs/relevance.ts): counted per source, with a bounded
-- sample of their shapes (values masked), so GET /api/v1/ingest/unrecognised and the ingest page show what no
-- template read. Small by construction: one row per source, at most 20 shapes each (lib/ingest/unrecognised.ts).
CREATE TABLE "unrecognised_sources" (
    "source" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "instance" TEXT,
    "lines" BIGINT NOT NULL,
    "groups" TEXT[] NOT NULL DEFAULT '{}',
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "last_seen" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "unrecognised_sources_pkey" PRIMARY KEY ("source")
);

CREATE TABLE "unrecognised_shapes" (
    "source" TEXT NOT NULL,
    "shape" TEXT NOT NULL,
    "anchor" TEXT NOT NULL,
    "lines" BIGINT NOT NULL,
    "last_line" INTEGER NOT NULL,
    "last_seen" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "unrecognised_shapes_pkey" PRIMARY KEY ("source", "shape")
);
