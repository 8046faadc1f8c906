import type { Evidence, EvidenceCode, EvidenceValues } from "./evidence.ts";
import type { Advice, AdviceCode, AdviceValues } from "./findings.ts";
import type { MissingCode, MissingData, Verdict } from "./types.ts";
import type { Cause, Defect, GapClass, Outcome } from "./vocabulary.ts";

/**
 * Every sentence diagnosis shows a human, in English and Simplified Chinese (many RocketMQ users read Chinese
 * first). Rules produce codes and values; this file alone turns them into words, so wording changes touch nothing
 * else and both languages stay in step (the types require every code in both).
 */

export type Locale = "en" | "zh-CN";

export interface RenderOptions {
  locale?: Locale;
  /** Offset of the times shown, in minutes east of UTC (480 for GMT+8). Default 0 (UTC). */
  utcOffsetMinutes?: number;
  /** The clock tolerance diagnosis used, quoted when a fact rests on it. */
  clockSkewMs?: number;
  /** Names to show for instances instead of their identity (RabbitMQ channels of a named connection). */
  instanceNames?: ReadonlyMap<string, string>;
}

interface Fmt {
  t(ts: number, coarse?: boolean): string;
  d(ms: number | null): string;
  i(instance: string | null): string;
  q(topic: string | null, queue: string | null): string;
  cause(c: string): string;
}

type Table<V extends object> = { [K in keyof V]: (v: V[K], f: Fmt) => string };

interface Language {
  evidence: Table<EvidenceValues>;
  missing: { [K in MissingCode]: (m: MissingData, f: Fmt) => string };
  advice: Table<AdviceValues>;
  cause: Record<Cause, string>;
  outcome: Record<Outcome, string>;
  defect: Record<Defect, string>;
  gapClass: Record<GapClass, string>;
  coarse: string;
  tolerant: (skew: string) => string;
  receipt: string;
  unknownInstance: string;
  duration: (ms: number) => string;
  verdict: (v: Verdict, f: Fmt, names: Language) => string;
}

function durationWith(units: { ms: string; s: string; min: string; h: string; sep: string }) {
  return (ms: number): string => {
    const abs = Math.abs(ms);
    if (abs < 1000) return `${Math.round(abs)}${units.sep}${units.ms}`;
    if (abs < 10_000) return `${(abs / 1000).toFixed(1).replace(/\.0$/, "")}${units.sep}${units.s}`;
    if (abs < 60_000) return `${Math.round(abs / 1000)}${units.sep}${units.s}`;
    if (abs < 3_600_000) {
      const min = Math.floor(abs / 60_000);
      const s = Math.round((abs % 60_000) / 1000);
      return s === 0 ? `${min}${units.sep}${units.min}` : `${min}${units.sep}${units.min} ${s}${units.sep}${units.s}`;
    }
    const h = Math.floor(abs / 3_600_000);
    const min = Math.round((abs % 3_600_000) / 60_000);
    return min === 0 ? `${h}${units.sep}${units.h}` : `${h}${units.sep}${units.h} ${min}${units.sep}${units.min}`;
  };
}

interface MembershipWords {
  between: string;
  before: (d: string) => string;
  beyond: (interval: string) => string;
}

const WHEN_EN: MembershipWords = {
  between: "between the two deliveries",
  before: (d) => `${d} before the first delivery`,
  beyond: (interval) => `; that is a little over one rebalance interval (${interval}), counted because clocks on different hosts differ`,
};

const WHEN_ZH: MembershipWords = {
  between: "在两次投递之间",
  before: (d) => `早于第一次投递 ${d}`,
  beyond: (interval) => `；略超过一个重平衡周期（${interval}），因不同主机的时钟存在偏差仍计入`,
};

/** Where a membership change lies against the deliveries, and why one just outside the interval still counts. */
function membershipWhen(v: { beforeFirstMs: number; intervalMs: number }, f: Fmt, words: MembershipWords): string {
  if (v.beforeFirstMs <= 0) return words.between;
  return words.before(f.d(v.beforeFirstMs)) + (v.beforeFirstMs > v.intervalMs ? words.beyond(f.d(v.intervalMs)) : "");
}

const CHANNEL_EN: Record<string, string> = {
  channel_inactive: "connection closed without unregistering",
  channel_expired: "no heartbeat for 120 s",
  connection_closed: "connection closed",
  channel_closed: "channel closed",
  connection_lost: "client unexpectedly closed TCP connection",
  heartbeat_missed: "missed heartbeats",
};
const CHANNEL_ZH: Record<string, string> = {
  channel_inactive: "连接未注销即关闭",
  channel_expired: "120 秒无心跳",
  connection_closed: "连接已关闭",
  channel_closed: "通道已关闭",
  connection_lost: "客户端 TCP 连接意外断开",
  heartbeat_missed: "心跳超时",
};

/** RabbitMQ's channel and connection closes: the broker requeues whatever the channel had not acknowledged. */
const RABBIT_CLOSES = new Set(["connection_closed", "channel_closed", "connection_lost", "heartbeat_missed"]);

const EN: Language = {
  evidence: {
    stored_copies: (v, f) => `msgId ${v.msgId} was stored ${v.copies} times${v.offsetMsgIds === "" ? "" : ` (offsetMsgId ${v.offsetMsgIds})`} within ${f.d(v.spanMs)}`,
    send_failed_then_retried: (v, f) =>
      `the send of ${v.msgId} from ${f.i(v.instance)} at ${f.t(v.ts)} reported failure${v.costMs === null ? "" : ` after ${f.d(v.costMs)}`} although the broker stored it`,
    producer_resend_logged: (v, f) => `producer ${f.i(v.instance)} logged "resend at once" at ${f.t(v.ts)}${v.msgId === null ? "" : ` for ${v.msgId}`}`,
    within_send_window: (v, f) =>
      `the copies are ${f.d(v.gapMs)} apart, within the send-retry window of ${f.d(v.windowMs)} (${v.broker === "rocketmq" ? "sendMsgTimeout × attempts" : "the publisher's confirm wait × attempts, as configured for diagnosis"})`,
    beyond_send_window: (v, f) => `the copies are ${f.d(v.gapMs)} apart, beyond the send-retry window of ${f.d(v.windowMs)}`,
    single_stored_copy: (v) => `only one stored copy of ${v.msgId} was traced (offsetMsgId ${v.offsetMsgId})`,
    copies_differ: (v) => `the two deliveries read different stored copies (${v.first} and ${v.second})`,
    same_copy: (v) => `both deliveries read the same stored copy (${v.copy})`,
    not_redelivered: (v, f) => `the broker delivered it to ${f.i(v.instance)} at ${f.t(v.ts)} with redelivered = false: a new copy in the queue, not a redelivery`,
    first_deliveries: () => `both deliveries have retryTimes 0: neither is a consumer retry`,
    same_msg_id: (v) => `both deliveries carry msgId ${v.msgId}`,
    different_msg_ids: (v) => `the deliveries carry different msgIds (${v.first}, then ${v.second}) for the same business key`,
    published_twice: (v, f) =>
      `published twice: ${v.firstMsgId} from ${f.i(v.firstHost)} at ${f.t(v.firstTs)}, ${v.secondMsgId} from ${f.i(v.secondHost)} at ${f.t(v.secondTs)}`,
    queue_moved: (v, f) =>
      `queue ${f.q(v.topic, v.queue)} moved from ${f.i(v.from)} to ${f.i(v.to)} at ${f.t(v.ts)}, ${v.position === "between" ? "between the two deliveries" : "just before the first delivery, while the old owner still held the messages it had pulled"}`,
    queue_removed: (v, f) => `${f.i(v.instance)} gave up queue ${f.q(v.topic, v.queue)} at ${f.t(v.ts)}`,
    queue_added: (v, f) => `${f.i(v.instance)} took queue ${f.q(v.topic, v.queue)} at ${f.t(v.ts)}`,
    queue_dropped_mid_consume: (v, f) =>
      `${f.i(v.instance)} dropped queue ${v.queue ?? "?"} at ${f.t(v.ts)} with consumed messages not committed ("processQueue is dropped without process consume result")${v.msgId === null ? "" : `, ${v.msgId} among them`}`,
    group_rebalanced: (v, f) => `group ${v.group ?? "?"} rebalanced on ${f.i(v.instance)} at ${f.t(v.ts)}`,
    member_joined: (v, f) => `${f.i(v.instance)} joined the group at ${f.t(v.ts)}, ${membershipWhen(v, f, WHEN_EN)}`,
    member_left: (v, f) => `${f.i(v.instance)} left the group cleanly at ${f.t(v.ts)}, ${membershipWhen(v, f, WHEN_EN)}`,
    owner_still_alive: (v, f) => `${f.i(v.instance)} was still alive at ${f.t(v.ts)}, after the redelivery`,
    channel_lost: (v, f) =>
      RABBIT_CLOSES.has(v.action)
        ? `${f.i(v.instance)} closed at ${f.t(v.ts)} (${CHANNEL_EN[v.action]}) with the delivery unacknowledged: the broker requeued it`
        : `the broker dropped the connection of ${f.i(v.instance)} at ${f.t(v.ts)} (${CHANNEL_EN[v.action] ?? v.action})`,
    no_shutdown: (v, f) => `${f.i(v.instance)} logged no shutdown`,
    process_restarted: (v, f) => `a new process ${f.i(v.newInstance)} started on ${v.host} at ${f.t(v.ts)}, replacing ${f.i(v.oldInstance)}`,
    owner_went_silent: (v, f) => `${f.i(v.instance)} logged nothing after ${f.t(v.lastTs)}`,
    redelivered_flag: (v, f) => `the broker marked the delivery to ${f.i(v.instance)} at ${f.t(v.ts)} as redelivered`,
    partition_lost: (v, f) => `${f.i(v.instance)} lost partition ${v.queue ?? "?"} at ${f.t(v.ts)}: it was thrown out of the group`,
    consume_timed_out: (v, f) => {
      const cost = v.costMs === null ? "" : ` after ${f.d(v.costMs)}`;
      switch (v.via) {
        case "trace":
          return `the consume on ${f.i(v.instance)} ended in TIME_OUT at ${f.t(v.ts)}${cost}`;
        case "expire_msg_back":
          return `${f.i(v.instance)} sent the expired message back at ${f.t(v.ts)} ("send expire msg back")`;
        case "duration":
          return `the consume on ${f.i(v.instance)} ran past consumeTimeout (${f.t(v.ts)})${cost}`;
        case "poll_timeout":
          return `${f.i(v.instance)} exceeded max.poll.interval.ms at ${f.t(v.ts)} and left the group`;
        case "ack_timeout":
          return `${f.i(v.instance)} did not acknowledge within the consumer timeout (${f.t(v.ts)})`;
      }
    },
    consume_failed: (v, f) => `the consume on ${f.i(v.instance)} failed at ${f.t(v.ts)} (${v.contextName ?? "failure"})`,
    effect_before_failure: (v, f) => `the business effect on ${f.i(v.instance)} committed at ${f.t(v.effectTs)}, before the consume failed at ${f.t(v.failTs)}`,
    retry_delivery: (v) => `the second delivery is retry ${v.to}; the first was ${v.from === 0 ? "a first delivery" : `retry ${v.from}`}`,
    retry_on_schedule: (v, f) => `it came ${f.d(v.gapMs)} later, as the retry schedule gives for retry ${v.retryTimes} (${f.d(v.expectedMs)})`,
    retry_after_success: (v, f) => `${f.i(v.instance)} reported success, yet a retry followed`,
    inherited: (v, f) => `this is a retry of ${v.delivery}, which failed without a side effect; ${v.delivery} was itself a duplicate (${f.cause(v.cause)})`,
    retry_chains_forked: (v, f) =>
      `both deliveries go back to one copy (retry ${v.retryTimes}) that ${v.first} and ${v.second} both consumed: the retry chain split there (${f.cause(v.cause)})`,
    consumed_directly: (v, f) => `${f.i(v.instance)} consumed it directly at ${f.t(v.ts)} (consumeMessageDirectly: a dashboard or DLQ resend)`,
    dlq_topic: (v) => `the copy came from the dead-letter topic ${v.topic}`,
    republished_to_retry: (v, f) => `${v.producerGroup ?? "a producer"} republished it to ${v.topic} at ${f.t(v.ts)}`,
    retries_exhausted: (v) => `the previous attempt was retry ${v.retryTimes} (maxReconsumeTimes ${v.max}) and failed: the message went to the DLQ`,
    dead_lettered: (v, f) =>
      `the copy had been dead-lettered${v.queue === null ? "" : ` from ${v.queue}`}${v.reason === null ? "" : ` (${v.reason}${v.count === null ? "" : `, ${v.count}×`})`}${v.ts === null ? "" : ` at ${f.t(v.ts)}`} before it came back (x-death)`,
    shovelled: (v) => `shovel ${v.shovel ?? "?"} moved it from ${v.from ?? "?"} to ${v.to ?? "?"} (x-shovelled)`,
    delivery_without_trace: (v, f) => `no consume trace exists for the delivery to ${f.i(v.instance)} at ${f.t(v.ts)}, while the group's other deliveries are traced`,
    delay_message: (v) => `${v.msgId} is a delayed message (${v.msgType})`,
    tx_commit: (v, f) => `${v.msgId} was committed at ${f.t(v.ts)} ${v.fromCheck ? "by a transaction check-back" : "by the producer"}`,
    tx_checkback: (v, f) => `the broker checked back transaction ${v.msgId} at ${f.t(v.ts)}`,
    dedup_hit: (v, f) => `the ${v.layer} layer on ${f.i(v.instance)} said hit at ${f.t(v.ts)}: the delivery was skipped`,
    dedup_passed: (v, f) => `the delivery to ${f.i(v.instance)} passed ${v.layers} at ${f.t(v.ts)}`,
    executed_twice: (v, f) => `the business ran twice: on ${f.i(v.firstInstance)} at ${f.t(v.firstTs)} and on ${f.i(v.secondInstance)} at ${f.t(v.secondTs)}`,
    second_failed: (v, f) => `the repeated business attempt on ${f.i(v.instance)} failed at ${f.t(v.ts)}`,
    dedup_keys_differ: (v) => `the two attempts used different dedup keys (${v.first} and ${v.second})`,
    dedup_key_is_msg_id: (v) => `dedup key ${v.dedupKey} contains the msgId ${v.msgId}, not the business key`,
    new_msg_id_passed: (v) => `a new msgId passed the ${v.layer} layer while the first marker was alive: the marker is keyed per message`,
    gap_over_ttl: (v, f) => `the ${v.layer} marker lives ${f.d(v.ttlMs)}; the second check came ${f.d(v.gapMs)} after the first`,
    gap_within_ttl: (v, f) => `the second check came ${f.d(v.gapMs)} after the first, within the ${v.layer} marker's ${f.d(v.ttlMs)}: the marker was missing`,
    concurrent_passes: (v, f) => `${f.i(v.firstInstance)} and ${f.i(v.secondInstance)} both passed the ${v.layer} layer ${f.d(v.gapMs)} apart`,
    acked_before_effect: (v, f) => `${f.i(v.instance)} acknowledged at ${f.t(v.ackTs)}, before its business committed at ${f.t(v.effectTs)}`,
    only_volatile_layers: (v) => `only ${v.layers} guarded it: nothing durable (DB unique key, state machine) behind the marker`,
    marker_left: (v, f) =>
      v.how === "failed"
        ? `the attempt on ${f.i(v.instance)} failed at ${f.t(v.ts)} and left its ${v.layer} marker in place (no "released")`
        : v.how === "released_late"
          ? `the attempt on ${f.i(v.instance)} held its ${v.layer} marker until ${f.t(v.ts)}: it failed and released it only after the other delivery was skipped`
          : `the attempt on ${f.i(v.instance)} passed the ${v.layer} layer at ${f.t(v.ts)} and never finished, leaving its marker in place`,
    retry_skipped: (v, f) => `the ${v.layer} layer on ${f.i(v.instance)} skipped the delivery at ${f.t(v.ts)}`,
    never_executed: () => `the business never ran for this key in this group`,
    reordered: (v, f) =>
      v.reason === "retry_times"
        ? `the clocks put the two deliveries the other way round; retryTimes decided the order (clock tolerance ±${f.d(v.toleranceMs)})`
        : `the clocks put the two deliveries the other way round; a hit must follow the pass that set the marker (clock tolerance ±${f.d(v.toleranceMs)})`,
  },
  missing: {
    no_pub_trace: (m) => `no Pub trace for msgId ${m.msgId ?? "?"}: producer tracing off?`,
    no_consume_trace: (m) => `no consume trace for group ${m.group ?? "?"}: consumer tracing off?`,
    no_dedup_log: (m) => `no dedup log for group ${m.group ?? "?"}: whether a duplicate was caught cannot be told`,
    no_dedup_line: (m, f) => `no dedup-log line for the delivery to ${f.i(m.instance ?? null)}${m.ts === undefined ? "" : ` at ${f.t(m.ts)}`}`,
    no_client_log: (m, f) => `no client log for instance ${f.i(m.instance ?? null)}`,
    no_broker_log: (m) => `no broker log for group ${m.group ?? "?"}: a consumer that vanished cannot be seen`,
    host_only_identity: (m, f) => `instances on ${f.i(m.instance ?? null)} are named by host only: two processes there look alike`,
    no_consume_end: (m, f) => `no SubAfter for the delivery to ${f.i(m.instance ?? null)}${m.ts === undefined ? "" : ` at ${f.t(m.ts)}`}: trace dropped, or the process died`,
    no_msg_id: (m) => `deliveries of group ${m.group ?? "?"} carry no msgId`,
    no_event_exchange: (m, f) =>
      `no channel or connection event for ${f.i(m.instance ?? null)} around the deliveries: enable rabbitmq_event_exchange (or ingest the RabbitMQ server log) to see consumers' channels close`,
  },
  advice: {
    marker_ttl_short: (v, f) =>
      `Redis marker TTL ${f.d(v.ttlMs)} is shorter than ${v.sharePct}% of redelivery gaps (longest ${f.d(v.longestGapMs)}); raise it above the longest gap${v.peakConsumeMs === null ? "" : ` and to ≥ 10× peak processing time (${f.d(v.peakConsumeMs)})`}, or rely on the DB unique key`,
    non_atomic_check: (v) => `${v.count} leak(s) came from two checks passing at once on two instances: use one atomic SET key NX EX (not GET then SET), or a DB unique key`,
    key_not_business_key: (v) => `${v.count} duplicate(s) passed because the dedup key is not the business key (a new msgId got a new marker): key the marker on the bizKey`,
    marker_not_released: (v) => `${v.count} message(s) were lost: a failed attempt left its marker and the retry was skipped; delete the marker on failure, or write it only after the side effect commits`,
    async_ack: (v) => `${v.count} leak(s) came from acknowledging before the business committed: return CONSUME_SUCCESS only after the side effect is durable`,
    no_durable_layer: (v) => `${v.count} leak(s) passed volatile layers only: add a DB unique key written in the business transaction`,
    rebalance_duplicates: (v) =>
      `${v.count} duplicate(s) (${v.sharePct}%) followed rebalances${v.perHour === null ? "" : ` (${v.perHour} per hour)`}: avoid needless restarts and scaling, shut consumers down with shutdown() so offsets are persisted`,
    ack_lost_duplicates: (v) => `${v.count} duplicate(s) followed consumers that vanished without shutdown: find why they died (OOM kill, crash, network) and shut down cleanly`,
    consume_timeouts: (v, f) =>
      `${v.count} duplicate(s) came from consumption past consumeTimeout${v.peakConsumeMs === null ? "" : ` (peak ${f.d(v.peakConsumeMs)})`}: speed the consumer up or raise consumeTimeout`,
    producer_retries: (v) => `${v.count} duplicate(s) are producer retries after send timeouts: check broker latency; the dedup key must be the UNIQ_KEY or the bizKey, which both copies share`,
    upstream_resends: (v) => `${v.count} duplicate(s) came from the upstream calling the producer twice: dedup on the bizKey, not the msgId, or make the upstream idempotent`,
    dlq_replays: (v) => `${v.count} duplicate(s) are DLQ replays: check that the first attempts really had no effect before resending`,
    double_commits: (v) => `${v.count} transactional message(s) were committed twice via check-back: make the local-transaction check answer idempotent`,
    delayed_double_writes: (v) => `${v.count} delayed message(s) were written to their topic twice by the broker: keep dedup on the UNIQ_KEY or bizKey for delayed topics`,
    no_dedup_log: (v) => `${v.count} duplicate(s) have an unknown outcome: add the dedup log (docs/dedup-log.md) to see whether they were caught`,
  },
  cause: {
    producer_retry: "producer retry",
    upstream_resend: "upstream resend",
    rebalance: "rebalance",
    ack_lost: "ACK/offset lost",
    consume_timeout: "consume timeout",
    retry_after_failure: "retry after failure",
    dlq_replay: "DLQ replay",
    delayed_double_write: "delayed-message double write",
    transaction_checkback: "transaction check-back",
    unknown: "unknown cause",
  },
  outcome: { caught: "caught", leaked: "leaked", unknown: "outcome unknown" },
  defect: {
    dedup_key_not_business_key: "dedup key is not the business key",
    marker_expired: "marker expired",
    non_atomic_check: "non-atomic check",
    marker_not_released: "marker not released",
    async_ack: "acknowledged before the business finished",
    no_durable_layer: "no durable dedup layer",
  },
  gapClass: { ms: "milliseconds apart", seconds: "seconds apart", minutes: "minutes apart" },
  coarse: " (broker time, to the second)",
  tolerant: (skew) => ` (within the ±${skew} clock tolerance)`,
  receipt: " (time of receipt by the collector: the firehose carries none)",
  unknownInstance: "an unknown instance",
  duration: durationWith({ ms: "ms", s: "s", min: "min", h: "h", sep: " " }),
  verdict: (v, f, names) => {
    const outcome = v.outcome === "caught" ? `caught by ${v.layer}` : v.outcome === "leaked" ? `leaked${v.defect === undefined ? "" : ` (${names.defect[v.defect]})`}` : names.outcome.unknown;
    return `${names.cause[v.cause]} (confidence ${v.confidence.toFixed(2)}), ${outcome}; ${f.d(v.gapMs)} apart, ${f.i(v.instances.first)} → ${f.i(v.instances.second)}`;
  },
};

const ZH: Language = {
  evidence: {
    stored_copies: (v, f) => `msgId ${v.msgId} 在 ${f.d(v.spanMs)}内被存储了 ${v.copies} 份${v.offsetMsgIds === "" ? "" : `（offsetMsgId ${v.offsetMsgIds}）`}`,
    send_failed_then_retried: (v, f) =>
      `${f.i(v.instance)} 在 ${f.t(v.ts)} 发送 ${v.msgId}${v.costMs === null ? "" : `，耗时 ${f.d(v.costMs)}后`}报告失败，但 broker 已存储该消息`,
    producer_resend_logged: (v, f) => `生产者 ${f.i(v.instance)} 在 ${f.t(v.ts)} 记录了 "resend at once"${v.msgId === null ? "" : `（${v.msgId}）`}`,
    within_send_window: (v, f) =>
      `两份副本相隔 ${f.d(v.gapMs)}，在 ${f.d(v.windowMs)}的发送重试窗口内（${v.broker === "rocketmq" ? "sendMsgTimeout × 次数" : "发布方等待确认的时长 × 次数，按诊断配置"}）`,
    beyond_send_window: (v, f) => `两份副本相隔 ${f.d(v.gapMs)}，超出 ${f.d(v.windowMs)}的发送重试窗口`,
    single_stored_copy: (v) => `轨迹中 ${v.msgId} 只有一份存储副本（offsetMsgId ${v.offsetMsgId}）`,
    copies_differ: (v) => `两次投递读取的是不同的存储副本（${v.first} 与 ${v.second}）`,
    same_copy: (v) => `两次投递读取的是同一份存储副本（${v.copy}）`,
    not_redelivered: (v, f) => `broker 在 ${f.t(v.ts)} 投递给 ${f.i(v.instance)} 时 redelivered = false：这是队列中的一份新副本，而不是重新投递`,
    first_deliveries: () => `两次投递的 retryTimes 都是 0：都不是消费重试`,
    same_msg_id: (v) => `两次投递的 msgId 相同：${v.msgId}`,
    different_msg_ids: (v) => `同一业务键的两次投递 msgId 不同（先 ${v.first}，后 ${v.second}）`,
    published_twice: (v, f) =>
      `被发送了两次：${v.firstMsgId} 由 ${f.i(v.firstHost)} 于 ${f.t(v.firstTs)} 发送，${v.secondMsgId} 由 ${f.i(v.secondHost)} 于 ${f.t(v.secondTs)} 发送`,
    queue_moved: (v, f) =>
      `队列 ${f.q(v.topic, v.queue)} 在 ${f.t(v.ts)} 从 ${f.i(v.from)} 转到 ${f.i(v.to)}，${v.position === "between" ? "发生在两次投递之间" : "就在第一次投递之前，当时原持有者仍持有已拉取的消息"}`,
    queue_removed: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 释放了队列 ${f.q(v.topic, v.queue)}`,
    queue_added: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 分配到队列 ${f.q(v.topic, v.queue)}`,
    queue_dropped_mid_consume: (v, f) =>
      `${f.i(v.instance)} 在 ${f.t(v.ts)} 丢弃了队列 ${v.queue ?? "?"}，已消费的消息未提交位点（"processQueue is dropped without process consume result"）${v.msgId === null ? "" : `，其中包括 ${v.msgId}`}`,
    group_rebalanced: (v, f) => `消费组 ${v.group ?? "?"} 在 ${f.i(v.instance)} 上于 ${f.t(v.ts)} 发生重平衡`,
    member_joined: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 加入消费组，${membershipWhen(v, f, WHEN_ZH)}`,
    member_left: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 正常退出消费组，${membershipWhen(v, f, WHEN_ZH)}`,
    owner_still_alive: (v, f) => `${f.i(v.instance)} 在重新投递之后的 ${f.t(v.ts)} 仍然存活`,
    channel_lost: (v, f) =>
      RABBIT_CLOSES.has(v.action)
        ? `${f.i(v.instance)} 在 ${f.t(v.ts)} 关闭（${CHANNEL_ZH[v.action]}），投递尚未确认：broker 将其重新入队`
        : `broker 在 ${f.t(v.ts)} 移除了 ${f.i(v.instance)} 的连接（${CHANNEL_ZH[v.action] ?? v.action}）`,
    no_shutdown: (v, f) => `${f.i(v.instance)} 没有记录 shutdown`,
    process_restarted: (v, f) => `${v.host} 上在 ${f.t(v.ts)} 启动了新进程 ${f.i(v.newInstance)}，取代了 ${f.i(v.oldInstance)}`,
    owner_went_silent: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.lastTs)} 之后没有任何日志`,
    redelivered_flag: (v, f) => `broker 将 ${f.t(v.ts)} 投递给 ${f.i(v.instance)} 的消息标记为 redelivered`,
    partition_lost: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 丢失了分区 ${v.queue ?? "?"}：它被踢出了消费组`,
    consume_timed_out: (v, f) => {
      const cost = v.costMs === null ? "" : `，耗时 ${f.d(v.costMs)}`;
      switch (v.via) {
        case "trace":
          return `${f.i(v.instance)} 上的消费在 ${f.t(v.ts)} 以 TIME_OUT 结束${cost}`;
        case "expire_msg_back":
          return `${f.i(v.instance)} 在 ${f.t(v.ts)} 将超时消息发回 broker（"send expire msg back"）`;
        case "duration":
          return `${f.i(v.instance)} 上的消费超过了 consumeTimeout（${f.t(v.ts)}）${cost}`;
        case "poll_timeout":
          return `${f.i(v.instance)} 在 ${f.t(v.ts)} 超过 max.poll.interval.ms 并离开了消费组`;
        case "ack_timeout":
          return `${f.i(v.instance)} 未在消费者超时时间内确认（${f.t(v.ts)}）`;
      }
    },
    consume_failed: (v, f) => `${f.i(v.instance)} 上的消费在 ${f.t(v.ts)} 失败（${v.contextName ?? "失败"}）`,
    effect_before_failure: (v, f) => `${f.i(v.instance)} 上的业务副作用在 ${f.t(v.effectTs)} 已提交，随后消费在 ${f.t(v.failTs)} 失败`,
    retry_delivery: (v) => `第二次投递是第 ${v.to} 次重试；第一次${v.from === 0 ? "是首次投递" : `是第 ${v.from} 次重试`}`,
    retry_on_schedule: (v, f) => `它在 ${f.d(v.gapMs)}后到达，符合第 ${v.retryTimes} 次重试的延迟（${f.d(v.expectedMs)}）`,
    retry_after_success: (v, f) => `${f.i(v.instance)} 报告消费成功，但之后仍有重试`,
    inherited: (v, f) => `这是 ${v.delivery} 的重试，${v.delivery} 失败且没有副作用；而 ${v.delivery} 本身就是重复投递（${f.cause(v.cause)}）`,
    retry_chains_forked: (v, f) => `两次投递都源自同一副本（第 ${v.retryTimes} 次重试），${v.first} 和 ${v.second} 都消费了它：重试链在那里分叉（${f.cause(v.cause)}）`,
    consumed_directly: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 直接消费了该消息（consumeMessageDirectly：控制台或死信重发）`,
    dlq_topic: (v) => `该副本来自死信主题 ${v.topic}`,
    republished_to_retry: (v, f) => `${v.producerGroup ?? "某个生产者"} 在 ${f.t(v.ts)} 将其重新发送到 ${v.topic}`,
    retries_exhausted: (v) => `上一次尝试是第 ${v.retryTimes} 次重试（maxReconsumeTimes ${v.max}）且失败：消息进入了死信队列`,
    dead_lettered: (v, f) =>
      `该副本${v.ts === null ? "" : `于 ${f.t(v.ts)} `}曾${v.queue === null ? "" : `从 ${v.queue} `}进入死信${v.reason === null ? "" : `（${v.reason}${v.count === null ? "" : `，${v.count} 次`}）`}，之后又被送回（x-death）`,
    shovelled: (v) => `shovel ${v.shovel ?? "?"} 将其从 ${v.from ?? "?"} 移到了 ${v.to ?? "?"}（x-shovelled）`,
    delivery_without_trace: (v, f) => `${f.t(v.ts)} 投递给 ${f.i(v.instance)} 的消息没有消费轨迹，而该消费组的其他投递都有`,
    delay_message: (v) => `${v.msgId} 是延时消息（${v.msgType}）`,
    tx_commit: (v, f) => `${v.msgId} 在 ${f.t(v.ts)} ${v.fromCheck ? "由事务回查" : "由生产者"}提交`,
    tx_checkback: (v, f) => `broker 在 ${f.t(v.ts)} 回查了事务 ${v.msgId}`,
    dedup_hit: (v, f) => `${f.i(v.instance)} 上的 ${v.layer} 层在 ${f.t(v.ts)} 命中：该投递被跳过`,
    dedup_passed: (v, f) => `投递给 ${f.i(v.instance)} 的消息在 ${f.t(v.ts)} 通过了 ${v.layers}`,
    executed_twice: (v, f) => `业务执行了两次：${f.i(v.firstInstance)} 于 ${f.t(v.firstTs)}，${f.i(v.secondInstance)} 于 ${f.t(v.secondTs)}`,
    second_failed: (v, f) => `${f.i(v.instance)} 上重复的业务执行在 ${f.t(v.ts)} 失败`,
    dedup_keys_differ: (v) => `两次尝试使用了不同的去重键（${v.first} 与 ${v.second}）`,
    dedup_key_is_msg_id: (v) => `去重键 ${v.dedupKey} 包含的是 msgId ${v.msgId}，而不是业务键`,
    new_msg_id_passed: (v) => `新的 msgId 在第一个标记仍有效时通过了 ${v.layer} 层：标记是按消息而不是按业务设置的`,
    gap_over_ttl: (v, f) => `${v.layer} 标记的有效期是 ${f.d(v.ttlMs)}；第二次检查在第一次之后 ${f.d(v.gapMs)}才到来`,
    gap_within_ttl: (v, f) => `第二次检查在第一次之后 ${f.d(v.gapMs)}，仍在 ${v.layer} 标记的 ${f.d(v.ttlMs)}有效期内：标记丢失了`,
    concurrent_passes: (v, f) => `${f.i(v.firstInstance)} 和 ${f.i(v.secondInstance)} 相隔 ${f.d(v.gapMs)}都通过了 ${v.layer} 层`,
    acked_before_effect: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ackTs)} 已确认消费，而业务在 ${f.t(v.effectTs)} 才提交`,
    only_volatile_layers: (v) => `只有 ${v.layers} 在防重：标记之后没有持久化的防线（数据库唯一键、状态机）`,
    marker_left: (v, f) =>
      v.how === "failed"
        ? `${f.i(v.instance)} 上的尝试在 ${f.t(v.ts)} 失败，且没有删除 ${v.layer} 标记（没有 "released"）`
        : v.how === "released_late"
          ? `${f.i(v.instance)} 上的尝试持有 ${v.layer} 标记直到 ${f.t(v.ts)}：它失败后才删除标记，而另一次投递已被跳过`
          : `${f.i(v.instance)} 上的尝试在 ${f.t(v.ts)} 通过了 ${v.layer} 层但没有完成，标记一直保留`,
    retry_skipped: (v, f) => `${f.i(v.instance)} 上的 ${v.layer} 层在 ${f.t(v.ts)} 跳过了该投递`,
    never_executed: () => `该业务键在这个消费组中从未执行过业务`,
    reordered: (v, f) =>
      v.reason === "retry_times"
        ? `按时钟两次投递的顺序相反；由 retryTimes 决定先后（时钟容差 ±${f.d(v.toleranceMs)}）`
        : `按时钟两次投递的顺序相反；命中必然发生在设置标记的通过之后（时钟容差 ±${f.d(v.toleranceMs)}）`,
  },
  missing: {
    no_pub_trace: (m) => `msgId ${m.msgId ?? "?"} 没有 Pub 轨迹：生产者未开启消息轨迹？`,
    no_consume_trace: (m) => `消费组 ${m.group ?? "?"} 没有消费轨迹：消费者未开启消息轨迹？`,
    no_dedup_log: (m) => `消费组 ${m.group ?? "?"} 没有去重日志：无法判断重复是否被拦截`,
    no_dedup_line: (m, f) => `${m.ts === undefined ? "" : `${f.t(m.ts)} `}投递给 ${f.i(m.instance ?? null)} 的消息没有去重日志`,
    no_client_log: (m, f) => `实例 ${f.i(m.instance ?? null)} 没有客户端日志`,
    no_broker_log: (m) => `消费组 ${m.group ?? "?"} 没有 broker 日志：无法看到消失的消费者`,
    host_only_identity: (m, f) => `${f.i(m.instance ?? null)} 上的实例只有主机名：同一主机上的两个进程无法区分`,
    no_consume_end: (m, f) => `${m.ts === undefined ? "" : `${f.t(m.ts)} `}投递给 ${f.i(m.instance ?? null)} 的消息没有 SubAfter：轨迹丢失，或进程已退出`,
    no_msg_id: (m) => `消费组 ${m.group ?? "?"} 的投递没有 msgId`,
    no_event_exchange: (m, f) => `两次投递前后没有 ${f.i(m.instance ?? null)} 的通道或连接事件：请启用 rabbitmq_event_exchange（或接入 RabbitMQ 服务端日志），才能看到消费者通道的关闭`,
  },
  advice: {
    marker_ttl_short: (v, f) =>
      `Redis 标记的 TTL ${f.d(v.ttlMs)}短于 ${v.sharePct}% 的重复投递间隔（最长 ${f.d(v.longestGapMs)}）；请将其调大到超过最长间隔${v.peakConsumeMs === null ? "" : `，并至少为峰值处理时间（${f.d(v.peakConsumeMs)}）的 10 倍`}，或依赖数据库唯一键`,
    non_atomic_check: (v) => `${v.count} 次泄漏来自两个实例同时通过检查：请使用原子的 SET key NX EX（而不是先 GET 再 SET），或数据库唯一键`,
    key_not_business_key: (v) => `${v.count} 次重复因去重键不是业务键而通过（新的 msgId 产生新标记）：请用业务键作为标记`,
    marker_not_released: (v) => `${v.count} 条消息丢失：失败的尝试留下了标记，重试被跳过；请在失败时删除标记，或在副作用提交后再写标记`,
    async_ack: (v) => `${v.count} 次泄漏来自业务提交前就确认了消费：请在副作用持久化后再返回 CONSUME_SUCCESS`,
    no_durable_layer: (v) => `${v.count} 次泄漏只经过了易失的防重层：请增加在业务事务中写入的数据库唯一键`,
    rebalance_duplicates: (v) =>
      `${v.count} 次重复（${v.sharePct}%）发生在重平衡之后${v.perHour === null ? "" : `（每小时 ${v.perHour} 次）`}：避免不必要的重启和扩缩容，用 shutdown() 正常关闭消费者以持久化位点`,
    ack_lost_duplicates: (v) => `${v.count} 次重复发生在消费者未经 shutdown 就消失之后：排查其退出原因（OOM、崩溃、网络）并正常关闭`,
    consume_timeouts: (v, f) =>
      `${v.count} 次重复来自消费超过 consumeTimeout${v.peakConsumeMs === null ? "" : `（峰值 ${f.d(v.peakConsumeMs)}）`}：请加快消费或调大 consumeTimeout`,
    producer_retries: (v) => `${v.count} 次重复是发送超时后的生产者重试：请检查 broker 延迟；去重键必须是两份副本共有的 UNIQ_KEY 或业务键`,
    upstream_resends: (v) => `${v.count} 次重复来自上游两次调用生产者：请按业务键而不是 msgId 去重，或让上游幂等`,
    dlq_replays: (v) => `${v.count} 次重复是死信重放：重发前请确认最初的尝试确实没有产生副作用`,
    double_commits: (v) => `${v.count} 条事务消息通过回查被提交了两次：请让本地事务回查的应答幂等`,
    delayed_double_writes: (v) => `${v.count} 条延时消息被 broker 写入了两次：延时主题的去重请使用 UNIQ_KEY 或业务键`,
    no_dedup_log: (v) => `${v.count} 次重复的结果未知：请接入去重日志（docs/dedup-log.md）以判断是否被拦截`,
  },
  cause: {
    producer_retry: "生产者重试",
    upstream_resend: "上游重复发送",
    rebalance: "重平衡",
    ack_lost: "确认/位点丢失",
    consume_timeout: "消费超时",
    retry_after_failure: "失败后重试",
    dlq_replay: "死信重放",
    delayed_double_write: "延时消息重复写入",
    transaction_checkback: "事务回查",
    unknown: "原因未知",
  },
  outcome: { caught: "已拦截", leaked: "已泄漏", unknown: "结果未知" },
  defect: {
    dedup_key_not_business_key: "去重键不是业务键",
    marker_expired: "标记已过期",
    non_atomic_check: "检查不是原子操作",
    marker_not_released: "标记未释放",
    async_ack: "业务完成前已确认",
    no_durable_layer: "缺少持久化防重层",
  },
  gapClass: { ms: "相隔毫秒级", seconds: "相隔秒级", minutes: "相隔分钟级" },
  coarse: "（broker 时间只精确到秒）",
  tolerant: (skew) => `（在 ±${skew}的时钟容差内）`,
  receipt: "（时间为采集器的接收时间：firehose 消息本身不带时间）",
  unknownInstance: "未知实例",
  duration: durationWith({ ms: "毫秒", s: "秒", min: "分", h: "小时", sep: " " }),
  verdict: (v, f, names) => {
    const outcome = v.outcome === "caught" ? `被 ${v.layer} 层拦截` : v.outcome === "leaked" ? `已泄漏${v.defect === undefined ? "" : `（${names.defect[v.defect]}）`}` : names.outcome.unknown;
    return `${names.cause[v.cause]}（置信度 ${v.confidence.toFixed(2)}），${outcome}；相隔 ${f.d(v.gapMs)}，${f.i(v.instances.first)} → ${f.i(v.instances.second)}`;
  },
};

const LANGUAGES: Record<Locale, Language> = { en: EN, "zh-CN": ZH };

function formatter(lang: Language, o: RenderOptions): Fmt {
  const offset = (o.utcOffsetMinutes ?? 0) * 60_000;
  return {
    t: (ts, coarse) => new Date(ts + offset).toISOString().slice(11, coarse ? 19 : 23),
    d: (ms) => (ms === null ? "?" : lang.duration(ms)),
    i: (instance) => (instance === null ? lang.unknownInstance : (o.instanceNames?.get(instance) ?? instance)),
    q: (topic, queue) => (topic === null ? (queue ?? "?") : `${topic}@${queue ?? "?"}`),
    cause: (c) => lang.cause[c as Cause] ?? c,
  };
}

function setup(o: RenderOptions): { lang: Language; f: Fmt } {
  const lang = LANGUAGES[o.locale ?? "en"];
  return { lang, f: formatter(lang, o) };
}

export function describeEvidence(e: Evidence, o: RenderOptions = {}): string {
  const { lang, f } = setup(o);
  // Second-precision times are shown without a fraction they never had.
  const fmt: Fmt = e.coarse ? { ...f, t: (ts) => f.t(ts, true) } : f;
  const render = lang.evidence[e.code as EvidenceCode] as (v: Evidence["values"], f: Fmt) => string;
  let text = render(e.values, fmt);
  if (e.coarse) text += lang.coarse;
  if (e.tolerant) text += lang.tolerant(f.d(o.clockSkewMs ?? 3000));
  if (e.receipt) text += lang.receipt;
  return text;
}

export function describeMissing(m: MissingData, o: RenderOptions = {}): string {
  const { lang, f } = setup(o);
  return lang.missing[m.code](m, f);
}

export function describeAdvice(a: Advice, o: RenderOptions = {}): string {
  const { lang, f } = setup(o);
  const render = lang.advice[a.code as AdviceCode] as (v: Advice["values"], f: Fmt) => string;
  return render(a.values, f);
}

/** One line per verdict: cause, confidence, outcome, gap and the two instances. */
export function describeVerdict(v: Verdict, o: RenderOptions = {}): string {
  const { lang, f } = setup(o);
  return lang.verdict(v, f, lang);
}

export function causeName(cause: Cause, locale: Locale = "en"): string {
  return LANGUAGES[locale].cause[cause];
}

export function outcomeName(outcome: Outcome, locale: Locale = "en"): string {
  return LANGUAGES[locale].outcome[outcome];
}

export function defectName(defect: Defect, locale: Locale = "en"): string {
  return LANGUAGES[locale].defect[defect];
}

export function gapClassName(gap: GapClass, locale: Locale = "en"): string {
  return LANGUAGES[locale].gapClass[gap];
}
