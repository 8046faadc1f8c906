import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openClientLog } from "../../../collectors/rocketmq-client-log/parse.ts";
import { parseLines } from "../../../collectors/types.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import { gmt8 } from "../../../lib/simulator/clock.ts";
import { dedup, SEC, T0 } from "../../helpers/diagnosis-events.ts";

/**
 * invisible_timeout from the RocketMQ 5 gRPC client's own log, without spans: the consumer that held the message
 * too long logs its ack refused for an expired receipt handle (rocketmq-client-java 5.0.0 → 5.2.x wording, field
 * samples issue 17 §5.1), and the message came again to another consumer in the meantime.
 */

const GROUP = "ledger";
const BIZ = "PAY-20261130-88412";
const MSG = "01B4B2DDF1A2F4A9B10640A1CB00000012";
const A = "ledger-0@4242";
const B = "ledger-1@5151";

/** The 5.x client's pattern: `%d{yyy-MM-dd HH:mm:ss.SSS,GMT+8} %-5p [%pid] [%t] [%logger{12}#%M:%L] - %m`. */
function clientLog(at: number, message: string, clientId = `${A}@0@lk3h2x1q8`): NormalizedEvent[] {
  const line = `${gmt8(T0 + at, "ms")} ERROR [4242] [RocketmqClientScheduler-1] [o.a.r.c.j.i.c.ProcessQueueImpl#lambda$ackMessage0$10:656] - ${message.replace("{clientId}", clientId)}`;
  const parsed = parseLines(line, openClientLog({ source: "rocketmq-client-log:ledger-0.log" }));
  assert.deepEqual(parsed.issues, []);
  assert.equal(parsed.events.length, 1, line);
  return parsed.events;
}

const refusedAck = (msgId: string) =>
  `Failed to ack message due to the invalid receipt handle, forgive to retry, clientId={clientId}, consumerGroup=${GROUP}, messageId=${msgId}, attempt=1, mq=broker-a.pay_success.2, endpoints=Endpoints{addressScheme=IPv4, addresses=[Address{host=10.0.0.20, port=8081}]}, requestId=5c1d7f0e-64a1-4b7d-9d1e-2a4f6b8c0e11, status message=[receipt handle is expired]`;

function deliveries(secondAt: number): NormalizedEvent[] {
  const line = (at: number, instance: string, decision: "pass" | "executed") =>
    dedup({ at, bizKey: BIZ, msgId: MSG, group: GROUP, instance, layer: "db", decision, broker: "rocketmq", topic: "pay_success" });
  return [line(0, A, "pass"), line(72 * SEC, A, "executed"), line(secondAt, B, "pass"), line(secondAt + 30, B, "executed")];
}

describe("invisible_timeout from the 5.x client log", () => {
  it("names it from the refused ack of the very message, with the line as evidence, in both languages", () => {
    const refused = clientLog(72 * SEC + 15, refusedAck(MSG));
    const result = diagnoseKey({ bizKey: BIZ, events: deliveries(61 * SEC), context: refused });
    assert.equal(result.duplicates.length, 1);
    const v = result.duplicates[0]!;
    assert.equal(v.cause, "invisible_timeout");
    assert.equal(v.outcome, "leaked");
    const e = v.evidence.find((x) => x.code === "receipt_handle_expired");
    assert.ok(e !== undefined, v.evidence.map((x) => x.code).join());
    assert.deepEqual(e.eventIds, [refused[0]!.id]);
    assert.match(describeEvidence(e), /^ledger-0@4242 could not acknowledge 01B4B2DDF1A2F4A9B10640A1CB00000012 at 12:01:12\.015: its receipt handle had expired \("receipt handle is expired"\), so the broker had already made the message visible again$/);
    assert.match(describeEvidence(e, { locale: "zh-CN" }), /未能确认（ack）消息 01B4B2DDF1A2F4A9B10640A1CB00000012：其 receipt handle 已过期/);
  });

  it("does not take another message's refused ack, nor a redelivery sooner than any lease", () => {
    const other = clientLog(72 * SEC + 15, refusedAck("01B4B2DDF1A2F4A9B10640A1CB00000099"));
    assert.notEqual(diagnoseKey({ bizKey: BIZ, events: deliveries(61 * SEC), context: other }).duplicates[0]?.cause, "invisible_timeout");
    const soon = clientLog(2 * SEC, refusedAck(MSG));
    assert.notEqual(diagnoseKey({ bizKey: BIZ, events: deliveries(800), context: soon }).duplicates[0]?.cause, "invisible_timeout");
  });
});
