-- CreateTable
CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "ts_precision" TEXT NOT NULL,
    "biz_key" TEXT,
    "msg_id" TEXT,
    "offset_msg_id" TEXT,
    "broker" TEXT NOT NULL,
    "topic" TEXT,
    "group_name" TEXT,
    "queue" TEXT,
    "queue_offset" BIGINT,
    "instance" TEXT,
    "retry_times" INTEGER,
    "redelivered" BOOLEAN,
    "success" BOOLEAN,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "source" TEXT NOT NULL,
    "ingested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "events_biz_key_ts_idx" ON "events"("biz_key", "ts");

-- CreateIndex
CREATE INDEX "events_msg_id_idx" ON "events"("msg_id");

-- CreateIndex
CREATE INDEX "events_group_name_ts_idx" ON "events"("group_name", "ts");
