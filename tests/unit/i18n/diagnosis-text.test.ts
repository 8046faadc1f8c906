import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evidence, type EvidenceCode, type EvidenceValues } from "../../../lib/diagnosis/evidence.ts";
import type { AdviceCode, AdviceValues } from "../../../lib/diagnosis/findings.ts";
import { causeName, defectName, describeAdvice, describeClockSkew, describeEvidence, describeMissing, describePair, describeVerdict, gapClassName, outcomeName } from "../../../lib/i18n/diagnosis-text.ts";
import type { MissingCode, Verdict } from "../../../lib/diagnosis/types.ts";
import { CAUSES, DEDUP_LAYERS, DEFECTS, GAP_CLASSES, OUTCOMES, type DedupLayer } from "../../../lib/diagnosis/vocabulary.ts";
import { dictionary } from "../../../lib/i18n/dictionary.ts";
import { T0 } from "../../helpers/diagnosis-events.ts";

const ts = T0 + 1204; // 12:00:01.204 UTC
const A = "10.0.0.5@123";
const B = "10.0.0.7@88";

/** One realistic value set per evidence code; the type makes a missing code a compile error. */
const SAMPLES: { [C in EvidenceCode]: EvidenceValues[C] } = {
  stored_copies: { msgId: "M1", copies: 2, offsetMsgIds: "O1, O2", spanMs: 2950 },
  send_failed_then_retried: { msgId: "M1", instance: A, ts, costMs: 2950 },
  producer_resend_logged: { instance: A, ts, msgId: "M1" },
  within_send_window: { gapMs: 2950, windowMs: 9000, broker: "rocketmq" },
  beyond_send_window: { gapMs: 12_000, windowMs: 9000, broker: "rocketmq" },
  single_stored_copy: { msgId: "M1", offsetMsgId: "O1" },
  copies_differ: { first: "broker-a:3@88123", second: "broker-b:1@5120" },
  same_copy: { copy: "broker-a:3@88123" },
  not_redelivered: { instance: "127.0.0.1:39972 -> 127.0.0.1:5672@1", ts },
  first_deliveries: {},
  same_msg_id: { msgId: "M1" },
  different_msg_ids: { first: "M1", second: "M2" },
  kafka_send_retried: { firstMsgId: "orders-0@5", secondMsgId: "orders-0@6", instance: A, gapMs: 3001, windowMs: 9000, failed: true },
  copy_without_send: { msgId: "orders-0@5", sentMsgId: "orders-0@6", queue: "orders-0" },
  too_soon_for_redelivery: { gapMs: 412, minInvisibleMs: 10_000 },
  published_twice: { firstMsgId: "M1", secondMsgId: "M2", firstTs: ts, secondTs: ts + 40_000, firstHost: "10.0.0.20", secondHost: "10.0.0.21" },
  queue_moved: { topic: "PAY_SUCCESS", queue: "broker-a:3", from: A, to: B, ts, position: "between" },
  queue_taken_over: { topic: "PAY_SUCCESS", queue: "broker-a:3", from: A, since: ts - 3 * 86_400_000, expired: true, to: B, ts, position: "between" },
  queue_removed: { topic: "PAY_SUCCESS", queue: "broker-a:3", instance: A, ts },
  queue_added: { topic: null, queue: "broker-a:3", instance: B, ts },
  queue_dropped_mid_consume: { queue: "broker-a:3", instance: A, ts, msgId: "M1" },
  group_rebalanced: { group: "pay-consumer", instance: A, ts },
  member_joined: { instance: "10.0.0.9@301", ts, beforeFirstMs: 21_200, intervalMs: 20_000 },
  member_left: { instance: A, ts, beforeFirstMs: -500, intervalMs: 20_000 },
  owner_still_alive: { instance: A, ts },
  channel_lost: { instance: A, action: "channel_expired", ts },
  no_shutdown: { instance: A },
  process_restarted: { host: "10.0.0.5", oldInstance: A, newInstance: "10.0.0.5@9001", ts },
  owner_went_silent: { instance: A, lastTs: ts },
  redelivered_flag: { instance: B, ts },
  same_record_other_instance: { queue: "orders-0", offset: 5, from: A, to: B },
  redelivered_while_processing: { instance: A, secondInstance: B, firstEnd: ts + 45_000, secondStart: ts + 30_000 },
  redelivered_without_failure: { instance: A, firstEnd: ts, gapMs: 30_000 },
  partition_lost: { queue: "order-paid-3", instance: A, ts },
  consume_timed_out: { instance: A, ts, costMs: 900_230, via: "trace" },
  poll_interval_exceeded: { instance: A, ts, exceededMs: 41_250 },
  broadcasting_group: { group: "cg_config_cache", instance: B, ts },
  client_id_shared: { clientId: "10.0.11.20@order-paid-consumer", host: "10.0.11.20", remotes: ["10.0.11.20:48864", "10.0.11.20:51202"], ts, instances: ["10.0.11.20@4242", "10.0.11.20@5151"] },
  offset_reset: { instance: null, ts, group: "cg_order_paid", topic: "order_paid", resetTo: ts - 90_000, by: "10.0.9.9:57522" },
  offset_commit_failed: { instance: A, ts, queue: "order-paid-3", offset: 6536, membershipLost: true },
  receipt_handle_expired: { instance: A, ts, msgId: "01B4B2DDF1A2F4A9B10640A1CB00000012", operation: "ack", status: "receipt handle is expired" },
  consume_failed: { instance: A, ts, contextName: "EXCEPTION" },
  effect_before_failure: { instance: A, effectTs: ts, failTs: ts + 20 },
  retry_delivery: { from: 0, to: 1 },
  retry_on_schedule: { retryTimes: 1, expectedMs: 10_000, gapMs: 10_040 },
  retry_after_success: { instance: A },
  inherited: { delivery: "d2", cause: "ack_lost" },
  retry_chains_forked: { first: "d1", second: "d3", retryTimes: 2, cause: "rebalance" },
  consumed_directly: { instance: A, ts },
  dlq_topic: { topic: "%DLQ%pay-consumer" },
  republished_to_retry: { topic: "%RETRY%pay-consumer", producerGroup: "ops-replay-group", ts },
  retries_exhausted: { retryTimes: 16, max: 16 },
  dead_lettered: { queue: "invoice.issue", reason: "rejected", count: 1, ts: T0 + 1000 },
  shovelled: { shovel: "invoice-dlq-replay", from: "invoice.issue.dlq", to: "invoice.issue" },
  delivery_without_trace: { instance: A, ts },
  delay_message: { msgId: "M1", msgType: "Delay_Msg" },
  tx_commit: { msgId: "M1", ts, fromCheck: true, state: "COMMIT_MESSAGE" },
  tx_checkback: { msgId: "M1", ts },
  dedup_hit: { layer: "redis", instance: B, ts },
  dedup_passed: { layers: "bloom, redis", instance: B, ts },
  executed_twice: { firstInstance: A, firstTs: ts, secondInstance: B, secondTs: ts + 47_000 },
  second_failed: { instance: B, ts },
  dedup_keys_differ: { first: "points:M1", second: "points:M2" },
  dedup_key_is_msg_id: { dedupKey: "points:M1", msgId: "M1" },
  new_msg_id_passed: { layer: "redis" },
  gap_over_ttl: { gapMs: 47_000, ttlMs: 30_000, layer: "redis" },
  gap_within_ttl: { gapMs: 20_000, ttlMs: 86_400_000, layer: "redis" },
  concurrent_passes: { gapMs: 6, firstInstance: A, secondInstance: B, layer: "redis" },
  acked_before_effect: { instance: A, ackTs: ts, effectTs: ts + 900 },
  only_volatile_layers: { layers: "bloom, redis" },
  written_twice: { probe: "payment", rows: 2, firstInstance: A, firstTs: ts, secondInstance: B, secondTs: ts + 47_000, gapMs: 47_000 },
  written_once: { probe: "payment", instance: A, ts },
  not_written: { probe: "payment", rows: 2, instance: B, ts },
  marker_left: { layer: "redis", instance: A, ts, how: "unfinished" },
  retry_skipped: { layer: "redis", instance: B, ts },
  never_executed: {},
  reordered: { reason: "dedup_order", toleranceMs: 3000 },
};

const ADVICE: { [C in AdviceCode]: AdviceValues[C] } = {
  marker_ttl_short: { ttlMs: 30_000, sharePct: 37, longestGapMs: 167_000, peakConsumeMs: 4200 },
  non_atomic_check: { count: 2 },
  key_not_business_key: { count: 3 },
  marker_not_released: { count: 1 },
  async_ack: { count: 1 },
  no_durable_layer: { count: 4 },
  rebalance_duplicates: { count: 17, sharePct: 63, perHour: 3 },
  ack_lost_duplicates: { count: 2 },
  consume_timeouts: { count: 1, peakConsumeMs: 900_230 },
  commit_failures: { count: 4 },
  offset_rollbacks: { count: 31 },
  shared_client_ids: { count: 7 },
  producer_retries: { count: 5 },
  upstream_resends: { count: 6 },
  dlq_replays: { count: 1 },
  double_commits: { count: 1 },
  delayed_double_writes: { count: 1 },
  no_dedup_log: { count: 9 },
};

const MISSING: MissingCode[] = ["no_pub_trace", "no_consume_trace", "no_dedup_log", "no_dedup_line", "no_client_log", "no_broker_log", "host_only_identity", "service_only_identity", "no_consume_end", "no_msg_id", "no_event_exchange"];

const BROKEN = /undefined|NaN|null|\[object|\$\{/;

describe("human sentences", () => {
  it("words a queue move the way an engineer would check it", () => {
    const e = evidence("queue_moved", "cause", ["x"], SAMPLES.queue_moved);
    assert.equal(describeEvidence(e), "queue PAY_SUCCESS@broker-a:3 moved from 10.0.0.5@123 to 10.0.0.7@88 at 12:00:01.204, between the two deliveries");
    assert.equal(describeEvidence(e, { locale: "zh-CN" }), "队列 PAY_SUCCESS@broker-a:3 在 12:00:01.204 从 10.0.0.5@123 转到 10.0.0.7@88，发生在两次投递之间");
  });

  it("says how far a membership change lies from the deliveries, and why one just outside the interval counts", () => {
    const joined = evidence("member_joined", "cause", ["e1"], SAMPLES.member_joined);
    assert.equal(
      describeEvidence(joined),
      "10.0.0.9@301 joined the group at 12:00:01.204, 21 s before the first delivery; that is a little over one rebalance interval (20 s), counted because clocks on different hosts differ",
    );
    assert.equal(describeEvidence(evidence("member_left", "cause", ["e2"], SAMPLES.member_left)), `${A} left the group cleanly at 12:00:01.204, between the two deliveries`);
    const near = evidence("member_joined", "cause", ["e3"], { ...SAMPLES.member_joined, beforeFirstMs: 4000 });
    assert.match(describeEvidence(near, { locale: "zh-CN" }), /加入消费组，早于第一次投递 4 秒$/);
  });

  it("shows times in the requested offset (GMT+8 for most RocketMQ deployments)", () => {
    const e = evidence("queue_moved", "cause", ["x"], SAMPLES.queue_moved);
    assert.match(describeEvidence(e, { locale: "zh-CN", utcOffsetMinutes: 480 }), /在 20:00:01\.204 从/);
  });

  it("drops the fraction of a second-precision time and says the fact rests on it; says when the clock tolerance was needed", () => {
    const coarse = evidence("channel_lost", "cause", ["x"], SAMPLES.channel_lost, { coarse: true });
    assert.equal(describeEvidence(coarse), "the broker dropped the connection of 10.0.0.5@123 at 12:00:01 (no heartbeat for 120 s) (broker time, to the second)");
    const skewed = evidence("concurrent_passes", "defect", ["x"], SAMPLES.concurrent_passes, { tolerant: true });
    assert.match(describeEvidence(skewed, { clockSkewMs: 2000 }), /\(within the ±2 s clock tolerance\)$/);
    assert.match(describeEvidence(skewed, { locale: "zh-CN", clockSkewMs: 2000 }), /（在 ±2 秒的时钟容差内）$/);
  });

  it("renders every evidence code, missing-data note and advice in both languages without holes", () => {
    for (const locale of ["en", "zh-CN"] as const) {
      for (const code of Object.keys(SAMPLES) as EvidenceCode[]) {
        const text = describeEvidence(evidence(code, "cause", [], SAMPLES[code] as never), { locale });
        assert.ok(text.length > 10 && !BROKEN.test(text), `${locale} ${code}: ${text}`);
      }
      for (const code of MISSING) {
        const text = describeMissing({ code, group: "pay-consumer", instance: A, msgId: "M1", ts }, { locale });
        assert.ok(!BROKEN.test(text), `${locale} ${code}: ${text}`);
      }
      for (const code of Object.keys(ADVICE) as AdviceCode[]) {
        const text = describeAdvice({ code, group: "pay-consumer", topic: "PAY_SUCCESS", values: ADVICE[code] } as never, { locale });
        assert.ok(!BROKEN.test(text), `${locale} ${code}: ${text}`);
      }
      for (const c of CAUSES) assert.ok(causeName(c, locale).length > 0);
      for (const o of OUTCOMES) assert.ok(outcomeName(o, locale).length > 0);
      for (const d of DEFECTS) assert.ok(defectName(d, locale).length > 0);
      for (const g of GAP_CLASSES) assert.ok(gapClassName(g, locale).length > 0);
    }
  });

  it("writes the missing-data notes a reader can act on", () => {
    assert.equal(describeMissing({ code: "no_pub_trace", msgId: "M1" }), "no Pub trace for msgId M1: producer tracing off?");
    assert.equal(describeMissing({ code: "no_pub_trace", msgId: "M1" }, { locale: "zh-CN" }), "msgId M1 没有 Pub 轨迹：生产者未开启消息轨迹？");
    assert.equal(describeMissing({ code: "no_client_log", instance: A }, { locale: "zh-CN" }), "实例 10.0.0.5@123 没有客户端日志");
  });

  it("words the Redis TTL advice with the numbers behind it", () => {
    const advice = { code: "marker_ttl_short", group: "GID_points_award", topic: "ORDER_PAID", values: ADVICE.marker_ttl_short } as const;
    assert.equal(
      describeAdvice(advice),
      "Redis marker TTL 30 s is shorter than 37% of redelivery gaps (longest 2 min 47 s); raise it above the longest gap and to ≥ 10× peak processing time (4.2 s), or rely on the DB unique key",
    );
    assert.match(describeAdvice(advice, { locale: "zh-CN" }), /^Redis 标记的 TTL 30 秒短于 37% 的重复投递间隔（最长 2 分钟 47 秒）/);
  });

  it("sums a verdict up on one line", () => {
    const v: Verdict = {
      group: "pay-consumer",
      topic: "PAY_SUCCESS",
      cause: "ack_lost",
      confidence: 0.9,
      evidence: [],
      gapMs: 47_000,
      clockSkewMs: 0,
      gapClass: "seconds",
      instances: { first: A, second: B },
      sameInstance: false,
      outcome: "leaked",
      defect: "marker_expired",
      deliveries: ["d1", "d2"],
      msgIds: { first: "M1", second: "M1" },
    };
    assert.equal(describeVerdict(v), "ACK/offset lost (confidence 0.90), leaked (marker expired); 47 s apart");
    assert.equal(describeVerdict(v, { locale: "zh-CN" }), "确认/位点丢失（置信度 0.90），已泄漏（标记已过期）；相隔 47 秒");
    const skewed = { ...v, gapMs: 189, clockSkewMs: 189, gapClass: "ms" as const };
    assert.equal(describeVerdict(skewed), "ACK/offset lost (confidence 0.90), leaked (marker expired); 189 ms apart (the clocks put them the other way round: the hosts' clocks disagree by ~189 ms)");
    assert.equal(describeVerdict(skewed, { locale: "zh-CN" }), "确认/位点丢失（置信度 0.90），已泄漏（标记已过期）；相隔 189 毫秒（按时钟两者顺序相反：两台主机的时钟相差约 189 毫秒）");
  });

  it("names the dedup layers as the dashboard does, never by their codes", () => {
    const caught = (layer: DedupLayer): Verdict => ({
      group: "pay-consumer", topic: "PAY_SUCCESS", cause: "rebalance", confidence: 0.9, evidence: [], gapMs: 2_000, clockSkewMs: 0, gapClass: "seconds",
      instances: { first: A, second: B }, sameInstance: false, outcome: "caught", layer, deliveries: ["d1", "d2"], msgIds: { first: "M1", second: "M1" },
    });
    for (const layer of DEDUP_LAYERS) {
      for (const locale of ["en", "zh-CN"] as const) {
        const words = dictionary(locale).layers[layer];
        assert.ok(describeVerdict(caught(layer), { locale }).includes(words), `${locale} verdict names ${layer} "${words}"`);
      }
    }
    assert.equal(describeVerdict(caught("redis")), "rebalance (confidence 0.90), caught by the Redis marker; 2 s apart");
    assert.equal(describeVerdict(caught("redis"), { locale: "zh-CN" }), "重平衡（置信度 0.90），被 Redis 标记拦截；相隔 2 秒");
    assert.equal(describeVerdict(caught("db"), { locale: "zh-CN" }), "重平衡（置信度 0.90），被数据库唯一键拦截；相隔 2 秒");
    const passed = evidence("dedup_passed", "outcome", [], { layers: "bloom, redis, db", instance: B, ts: Date.UTC(2026, 11, 7, 3, 0, 0, 189) });
    assert.equal(describeEvidence(passed), "the delivery to 10.0.0.7@88 passed the Bloom filter, Redis marker and DB unique key at 03:00:00.189");
    assert.equal(describeEvidence(passed, { locale: "zh-CN" }), "投递给 10.0.0.7@88 的消息在 03:00:00.189 通过了布隆过滤器、Redis 标记、数据库唯一键");
    const hit = evidence("dedup_hit", "outcome", [], { layer: "redis", instance: B, ts: Date.UTC(2026, 11, 7, 3, 0, 0, 189) });
    assert.equal(describeEvidence(hit, { locale: "zh-CN" }), "10.0.0.7@88 上的 Redis 标记在 03:00:00.189 命中：该投递被跳过");
    // A layer of the application's own that the vocabulary has no name for is shown as it was logged.
    assert.equal(describeEvidence(evidence("dedup_hit", "outcome", [], { layer: "cache", instance: B, ts: Date.UTC(2026, 11, 7, 3, 0, 0, 189) })), "the cache on 10.0.0.7@88 said hit at 03:00:00.189: the delivery was skipped");
    for (const locale of ["en", "zh-CN"] as const) {
      for (const [code, values] of Object.entries(SAMPLES)) {
        if (!("layer" in values) && !("layers" in values)) continue;
        const text = describeEvidence(evidence(code as EvidenceCode, "outcome", [], values as never), { locale });
        assert.doesNotMatch(text, /\b(bloom|redis)\b/, `${locale} ${code} names no layer by its code: ${text}`);
      }
    }
  });

  it("names a verdict's group, topic and two deliveries by instance and time, in the diagnosis's order", () => {
    const first = { id: "d1", instance: A, start: Date.UTC(2026, 11, 7, 3, 0, 0, 189) };
    const second = { id: "d2", instance: B, start: Date.UTC(2026, 11, 7, 3, 0, 0, 0) };
    assert.equal(describePair({ group: "pay-consumer", topic: "PAY_SUCCESS" }, first, second), "group pay-consumer (topic PAY_SUCCESS): d1 on 10.0.0.5@123 at 03:00:00.189 → d2 on 10.0.0.7@88 at 03:00:00.000");
    assert.equal(describePair({ group: "pay-consumer", topic: null }, first, second, { locale: "zh-CN" }), "消费组 pay-consumer：d1（10.0.0.5@123，03:00:00.189）→ d2（10.0.0.7@88，03:00:00.000）");
  });

  it("words a gap stamped against the known order as its size and the clocks' disagreement, never as a negative duration", () => {
    const passes = evidence("concurrent_passes", "defect", [], { gapMs: -189, firstInstance: A, secondInstance: B, layer: "redis" });
    assert.equal(describeEvidence(passes), "10.0.0.5@123 and 10.0.0.7@88 both passed the Redis marker 189 ms apart; the hosts' clocks disagree by ~189 ms");
    assert.equal(describeEvidence(passes, { locale: "zh-CN" }), "10.0.0.5@123 和 10.0.0.7@88 相隔 189 毫秒都通过了 Redis 标记；两台主机的时钟相差约 189 毫秒");
    assert.equal(describeClockSkew(180), "the hosts' clocks disagree by ~180 ms");
  });

  it("says the clock tolerance of a reordered pair once", () => {
    const reordered = evidence("reordered", "cause", [], { reason: "retry_times", toleranceMs: 3000 }, { tolerant: true });
    assert.equal(describeEvidence(reordered, { clockSkewMs: 3000 }), "the clocks put the two deliveries the other way round; retryTimes decided the order (within the ±3 s clock tolerance)");
    assert.equal(describeEvidence(reordered, { locale: "zh-CN", clockSkewMs: 3000 }), "按时钟两次投递的顺序相反；由 retryTimes 决定先后（在 ±3 秒的时钟容差内）");
  });
});
