import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openBrokerLog } from "../../../collectors/rocketmq-broker-log/parse.ts";
import { parseLines } from "../../../collectors/types.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { describeEvidence } from "../../../lib/i18n/diagnosis-text.ts";
import { gmt8 } from "../../../lib/simulator/clock.ts";
import { dedup, SEC, T0 } from "../../helpers/diagnosis-events.ts";

/**
 * shared_client_id on the broker's own connection lines (the ClientChannelInfo wording of RocketMQ 4.x/5.x,
 * field samples issue 17 §3.3): two processes of one host connected with one clientId, each consuming the same
 * message milliseconds apart — against two pods of one host with their own clientIds, and a restart that reconnects.
 */

const GROUP = "cg_order_paid";
const KEY = "PAY-20261130-000777";
const MSG = "0A000005303918B4AAC27A1C3A900777";
const HOST = "10.0.11.20";

const connected = (at: number, clientId: string, port: number) =>
  `${gmt8(T0 + at, "s")} INFO HeartbeatThread_3 - new consumer connected, group: ${GROUP} CONSUME_PASSIVELY CLUSTERING channel: ClientChannelInfo [channel=[id: 0x5c1d7f0e, L:/10.0.0.2:10911 - R:/${HOST}:${port}], clientId=${clientId}, language=JAVA, version=401, lastUpdateTimestamp=${T0 + at}]`;
const unregistered = (at: number, clientId: string, port: number) =>
  `${gmt8(T0 + at, "s")} INFO ClientManageThread_1 - unregister a consumer[${GROUP}] from consumerGroupInfo ClientChannelInfo [channel=[id: 0x5c1d7f0e, L:/10.0.0.2:10911 - R:/${HOST}:${port}], clientId=${clientId}, language=JAVA, version=401, lastUpdateTimestamp=${T0 + at}]`;

function broker(lines: string[]): NormalizedEvent[] {
  const parsed = parseLines(lines.join("\n"), openBrokerLog({ source: "rocketmq-broker-log:broker-a.log", instance: "broker-a" }));
  assert.deepEqual(parsed.issues, []);
  assert.equal(parsed.skipped, 0);
  return parsed.events;
}

/** The same message consumed by pid 4242 and pid 5151 of one host, 7 ms apart, both passing the Redis layer late. */
const events = [
  dedup({ at: 60 * SEC, bizKey: KEY, msgId: MSG, group: GROUP, instance: `${HOST}@4242`, layer: "redis", decision: "pass", ttlMs: 86_400_000 }),
  dedup({ at: 60 * SEC + 3, bizKey: KEY, msgId: MSG, group: GROUP, instance: `${HOST}@4242`, layer: "redis", decision: "executed" }),
  dedup({ at: 60 * SEC + 7, bizKey: KEY, msgId: MSG, group: GROUP, instance: `${HOST}@5151`, layer: "redis", decision: "hit" }),
];

describe("shared_client_id", () => {
  it("names two connections of one clientId from one host, citing both lines, in both languages", () => {
    const lines = broker([connected(0, `${HOST}@order-paid-consumer`, 48864), connected(2 * SEC, `${HOST}@order-paid-consumer`, 51202)]);
    const v = diagnoseKey({ bizKey: KEY, events, context: lines }).duplicates[0]!;
    assert.equal(v.cause, "shared_client_id");
    assert.equal(v.outcome, "caught");
    const e = v.evidence.find((x) => x.code === "client_id_shared")!;
    assert.deepEqual(e.eventIds, lines.map((l) => l.id));
    assert.equal(
      describeEvidence(e),
      "two processes on 10.0.11.20 connected to the broker with the same clientId 10.0.11.20@order-paid-consumer (from 10.0.11.20:48864 and 10.0.11.20:51202, the second at 12:00:02.000): the broker took them for one member, so both were given the same queues and consumed the same messages (10.0.11.20@4242 and 10.0.11.20@5151)",
    );
    assert.match(describeEvidence(e, { locale: "zh-CN" }), /^10\.0\.11\.20 上的两个进程以同一个 clientId 10\.0\.11\.20@order-paid-consumer 连接 broker/);
  });

  it("leaves two pods of one host with their own clientIds, and a process that reconnected after closing, alone", () => {
    const distinct = broker([connected(0, `${HOST}@4242#1699112233`, 48864), connected(2 * SEC, `${HOST}@5151#1699115577`, 51202)]);
    assert.notEqual(diagnoseKey({ bizKey: KEY, events, context: distinct }).duplicates[0]?.cause, "shared_client_id");
    const restarted = broker([connected(0, `${HOST}@order-paid-consumer`, 48864), unregistered(SEC, `${HOST}@order-paid-consumer`, 48864), connected(2 * SEC, `${HOST}@order-paid-consumer`, 51202)]);
    assert.notEqual(diagnoseKey({ bizKey: KEY, events, context: restarted }).duplicates[0]?.cause, "shared_client_id");
  });
});
