/**
 * The duplicate story the probe tests tell per key, in the formats the store takes: published, consumed on A (its
 * dedup log: redis pass, executed), A's channel dropped by the broker, redelivered to B. Its outcome is unknown
 * until the business table is read.
 */

export const GROUP = "GID_payment";
export const TOPIC = "PAY_SUCCESS";
export const A = "10.0.0.5@4121";
export const B = "10.0.0.7@88";
/** 2026-11-30 12:00:00 at +08:00, where the MariaDB application writes its DATETIMEs. */
export const T0 = Date.UTC(2026, 10, 30, 4, 0, 0);

export const withDb = (url: string, db: string) => Object.assign(new URL(url), { pathname: `/${db}` }).toString();
export const withUser = (url: string, user: string, password = "") => Object.assign(new URL(url), { username: user, password }).toString();

/** One key's story: published, consumed on A (dedup log: redis pass, executed), A's channel dropped, redelivered to B. */
export function story(key: string, n: number): { events: object[]; dedupLines: string[] } {
  const t = T0 + n * 60_000;
  const msgId = `7F0000010B2A18B4AAC2841F3D9C000${n}`;
  const base = { broker: "rocketmq", bizKey: key, msgId, topic: TOPIC };
  const trace = "rocketmq-trace:/var/log/rocketmq/trace.ndjson";
  const consume = (at: number, host: string, requestId: string) => [
    { ...base, kind: "consume_start", ts: t + at, group: GROUP, instance: host, retryTimes: 0, source: trace, detail: { requestId, traceRecord: "SubBefore" } },
    { ...base, kind: "consume_end", ts: t + at + 80, group: GROUP, instance: host, success: true, source: trace, detail: { requestId, costTime: 80, contextCode: 0, contextName: "SUCCESS", traceRecord: "SubAfter" } },
  ];
  return {
    events: [
      { ...base, kind: "publish", ts: t, offsetMsgId: `0A00000500002A9F00000000000A1C2${n}`, queue: "broker-a:3", queueOffset: 88_120 + n, instance: "10.0.0.9", success: true, source: trace, detail: { producerGroup: "pay-producer", costTime: 3, traceRecord: "Pub" } },
      ...consume(450, "10.0.0.5", `a${n}`),
      {
        broker: "rocketmq",
        kind: "instance_lifecycle",
        ts: t + 2000,
        tsPrecision: "s",
        group: GROUP,
        instance: A,
        source: "rocketmq-broker-log:/var/log/rocketmq/broker.log",
        detail: { template: "channel_inactive", action: "channel_inactive", brokerInstance: "broker-a", brokerLine: "NETTY SERVER PIPELINE: channelInactive, the channel[10.0.0.5:53211]" },
      },
      ...consume(20_000, "10.0.0.7", `b${n}`),
    ],
    // Only A's dedup log was shipped.
    dedupLines: [
      { ts: t + 452, bizKey: key, msgId, group: GROUP, topic: TOPIC, instance: `${A}#2310457739811`, layer: "redis", decision: "pass", dedupKey: `pay:${key}`, ttlMs: 86_400_000 },
      { ts: t + 500, bizKey: key, msgId, group: GROUP, topic: TOPIC, instance: `${A}#2310457739811`, layer: "redis", decision: "executed", dedupKey: `pay:${key}` },
    ].map((l) => JSON.stringify(l)),
  };
}
