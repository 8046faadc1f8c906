import { createWriteStream, type WriteStream } from "node:fs";
import { once } from "node:events";
import { formatTraceRecord } from "../collectors/codecs/rocketmq-trace-body.ts";

/**
 * Realistic input for the ingest benchmark: RocketMQ trace messages (each a Pub, a SubBefore and a SubAfter for
 * one order, batched like the client does) and rocketmq_client.log rebalance lines, in the real formats. Seeded,
 * so two runs ingest the same bytes.
 */

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function write(out: WriteStream, line: string): Promise<void> {
  if (!out.write(line)) await once(out, "drain");
}

const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, "0");

export interface GeneratedInput {
  traceFile: string;
  clientLogFile: string;
  expectedEvents: number;
  /** The first and last event time written. */
  from: number;
  to: number;
}

/**
 * Writes about `events` events: 3 per traced order, plus one client-log rebalance line per 100 orders, an order every
 * 20 ms ending an hour before now (whole hours), so the store's retention of raw events (7 days by default) accepts them.
 */
export async function generateInput(dir: string, events: number, seed = 42): Promise<GeneratedInput> {
  const random = rng(seed);
  const traceFile = `${dir}/trace.ndjson`;
  const clientLogFile = `${dir}/rocketmq_client.log`;
  const trace = createWriteStream(traceFile);
  const clientLog = createWriteStream(clientLogFile);
  const orders = Math.ceil(events / (3 + 1 / 100));
  const hour = 3_600_000;
  const start = Math.floor((Date.now() - orders * 20) / hour) * hour - hour;
  let expected = 0;
  for (let i = 0; i < orders; i++) {
    const ts = start + i * 20 + Math.floor(random() * 10);
    const msgId = `7F00000100${hex(i, 22)}`;
    const key = `ORDER-20261130-${String(i).padStart(9, "0")}`;
    const queueId = i % 16;
    const consumer = `10.0.1.${(queueId % 4) + 10}`;
    const pub = formatTraceRecord({
      type: "Pub", timeStamp: ts, regionId: "DefaultRegion", producerGroup: "pay-producer", topic: "PAY_SUCCESS", msgId,
      tags: "paid", keys: [key], storeHost: "10.0.0.2:10911", bodyLength: 512 + Math.floor(random() * 512), costTime: 2 + Math.floor(random() * 5),
      msgType: 0, offsetMsgId: `0A00000200002A9F${hex(i * 1024, 16)}`, success: true,
    });
    const requestId = `0A00010${hex(i, 25)}`;
    const begin = ts + 40 + Math.floor(random() * 200);
    const cost = 5 + Math.floor(random() * 80);
    const before = formatTraceRecord({ type: "SubBefore", timeStamp: begin, regionId: "DefaultRegion", consumerGroup: "pay-consumer", requestId, msgId, retryTimes: 0, keys: [key] });
    const after = formatTraceRecord({ type: "SubAfter", requestId, msgId, costTime: cost, success: true, keys: [key], contextCode: 0, timeStamp: begin + cost, consumerGroup: "pay-consumer" });
    await write(trace, `${JSON.stringify({ bornHost: "10.0.0.9:45122", body: pub, storeTimestamp: ts + 5000 })}\n`);
    await write(trace, `${JSON.stringify({ bornHost: `${consumer}:${50000 + queueId}`, body: before + after, storeTimestamp: begin + cost + 5000 })}\n`);
    expected += 3;
    if (i % 100 === 0) {
      const local = new Date(ts + 8 * 3600_000).toISOString().replace("T", " ").replace("Z", "").replace(".", ",");
      await write(clientLog, `${local} INFO RocketmqClient - doRebalance, pay-consumer, add a new mq, MessageQueue [topic=PAY_SUCCESS, brokerName=broker-a, queueId=${queueId}]\n`);
      expected += 1;
    }
  }
  trace.end();
  clientLog.end();
  await Promise.all([once(trace, "finish"), once(clientLog, "finish")]);
  return { traceFile, clientLogFile, expectedEvents: expected, from: start, to: start + orders * 20 + 400 };
}
