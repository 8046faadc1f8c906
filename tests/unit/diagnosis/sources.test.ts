import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parse as parseServerLog } from "../../../collectors/rabbitmq-server-log/parse.ts";
import { sourceKind } from "../../../lib/diagnosis/sources.ts";

/** `--source` / `?source=` rename where events came from; what kind of log they are must not change with it. */

const LOG = readFileSync(path.join(import.meta.dirname, "../../../collectors/rabbitmq-server-log/testdata/rabbitmq-3.13.log"), "utf8");

describe("source kinds", () => {
  it("a RabbitMQ server log stays a broker log under any source name", () => {
    for (const source of ["rabbitmq-server-log:/var/log/rabbitmq/rabbit.log", "prod-billing-broker"]) {
      const events = parseServerLog(LOG, { source }).events;
      assert.ok(events.some((e) => e.detail.action === "ack_timeout"), "the consumer timeout is among them");
      assert.deepEqual(new Set(events.map(sourceKind)), new Set(["broker_log"]), source);
    }
  });

});
