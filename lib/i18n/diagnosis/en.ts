import { membershipWhen, RABBIT_CLOSES, type Language, type MembershipWords } from "./language.ts";

/** The diagnosis sentences in English. zh-CN.ts says the same in Simplified Chinese; language.ts is the shape of both. */

const WHEN_EN: MembershipWords = {
  between: "between the two deliveries",
  before: (d) => `${d} before the first delivery`,
  beyond: (interval) => `; that is a little over one rebalance interval (${interval}), counted because clocks on different hosts differ`,
};

const CHANNEL_EN: Record<string, string> = {
  channel_inactive: "connection closed without unregistering",
  channel_expired: "no heartbeat for 120 s",
  connection_closed: "connection closed",
  channel_closed: "channel closed",
  connection_lost: "client unexpectedly closed TCP connection",
  heartbeat_missed: "missed heartbeats",
};

export const en: Language = {
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
    kafka_send_retried: (v, f) =>
      `${f.i(v.instance)} sent the key twice ${f.d(v.gapMs)} apart, within its send window (${f.d(v.windowMs)})${v.failed ? ", the first send failing" : ""}: records ${v.firstMsgId} and ${v.secondMsgId}`,
    too_soon_for_redelivery: (v, f) =>
      `the same message id came again ${f.d(v.gapMs)} after the first delivery, sooner than RocketMQ 5 redelivers anything (its shortest invisible duration is ${f.d(v.minInvisibleMs)}): a second stored copy`,
    copy_without_send: (v) => `record ${v.msgId} of the same key has no send of its own, just before ${v.sentMsgId} that the producer's send reported: the client retried inside one send`,
    different_msg_ids: (v) => `the deliveries carry different msgIds (${v.first}, then ${v.second}) for the same business key`,
    published_twice: (v, f) =>
      `published twice: ${v.firstMsgId} from ${f.i(v.firstHost)} at ${f.t(v.firstTs)}, ${v.secondMsgId} from ${f.i(v.secondHost)} at ${f.t(v.secondTs)}`,
    queue_moved: (v, f) =>
      `queue ${f.q(v.topic, v.queue)} moved from ${f.i(v.from)} to ${f.i(v.to)} at ${f.t(v.ts)}, ${v.position === "between" ? "between the two deliveries" : "just before the first delivery, while the old owner still held the messages it had pulled"}`,
    queue_taken_over: (v, f) =>
      `${f.i(v.from)} had held queue ${f.q(v.topic, v.queue)} ${v.since === null ? "since before the first line ingested" : `since ${f.t(v.since)}${v.expired ? " (raw line expired)" : ""}`} until ${f.i(v.to)} took it at ${f.t(v.ts)}, ${v.position === "between" ? "between the two deliveries" : "just before the first delivery"}, with ${f.i(v.from)} still a member`,
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
    same_record_other_instance: (v, f) =>
      `${f.i(v.to)} processed the same record (${v.queue ?? "?"}${v.offset === null ? "" : ` offset ${v.offset}`}) that ${f.i(v.from)} had processed: the partition was reassigned before that offset was committed`,
    redelivered_while_processing: (v, f) =>
      `the message came again to ${f.i(v.secondInstance)} at ${f.t(v.secondStart)} while ${f.i(v.instance)} was still processing it (until ${f.t(v.firstEnd)}): its invisible duration ran out`,
    redelivered_without_failure: (v, f) =>
      `the attempt on ${f.i(v.instance)} ended without an error at ${f.t(v.firstEnd)}, yet the message came again ${f.d(v.gapMs)} later: its ack did not settle it before the invisible duration ran out`,
    receipt_handle_expired: (v, f) =>
      `${f.i(v.instance)} could not ${v.operation === "ack" ? "acknowledge" : "extend the invisible duration of"} ${v.msgId} at ${f.t(v.ts)}: its receipt handle had expired${v.status === null || v.status === "" ? "" : ` ("${v.status}")`}, so the broker had already made the message visible again`,
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
    offset_reset: (v, f) => {
      const logged = v.instance === null ? "" : ` (logged by ${f.i(v.instance)})`;
      const why = { offset_illegal: ", after the broker answered its pull with OFFSET_ILLEGAL", out_of_range: ", after its fetch position was out of range (auto.offset.reset)", seek: " by the application's seek", no_committed_offset: ", as its group had no committed offset for it (auto.offset.reset)" };
      const queue = `${v.reason === "offset_illegal" ? "queue" : "partition"} ${v.queue} of group ${v.group ?? "?"}${v.topic === null ? "" : ` on ${v.topic}`}`;
      const moved = v.fromOffset !== undefined ? `was moved back from offset ${v.fromOffset} to ${v.toOffset}` : `was reset to offset ${v.toOffset}`;
      return v.queue !== undefined && v.toOffset !== undefined
        ? `${queue} ${moved} at ${f.t(v.ts)}${v.reason === undefined ? "" : why[v.reason]}${logged}, between the two deliveries: what had been consumed since was consumed again`
        : `the offsets of group ${v.group ?? "?"}${v.topic === null ? "" : ` on ${v.topic}`} were reset${v.resetTo === null ? "" : ` back to ${f.t(v.resetTo)}`} at ${f.t(v.ts)}${v.by === null ? (v.instance === null ? "" : ` (logged by ${f.i(v.instance)})`) : ` (requested from ${v.by})`}, between the two deliveries: what had been consumed since was consumed again`;
    },
    client_id_shared: (v, f) =>
      `two processes on ${v.host} connected to the broker with the same clientId ${v.clientId} (from ${v.remotes[0]} and ${v.remotes[1]}, ${v.expired ? `connected since ${f.t(v.since ?? v.ts)} and ${f.t(v.ts)}, raw lines expired` : `the second at ${f.t(v.ts)}`}): the broker took them for one member, so both were given the same queues and consumed the same messages (${f.i(v.instances[0])} and ${f.i(v.instances[1])})`,
    broadcasting_group: (v, f) =>
      `group ${v.group} consumes in BROADCASTING mode (${f.i(v.instance)} ${v.inSpans ? "consumed so by its spans" : v.startedWith ? "started with it" : "connected with it"} ${v.expired ? `and has been ${v.inSpans ? "seen" : "connected"} since ${f.t(v.ts)}, raw line expired` : `at ${f.t(v.ts)}`}): every instance receives every message, so the second consumption on another instance is by design`,
    poll_interval_exceeded: (v, f) =>
      `${f.i(v.instance)} went longer than max.poll.interval.ms between polls${v.exceededMs === null ? "" : ` (by ${f.d(v.exceededMs)})`} and was dropped from the group (logged at ${f.t(v.ts)}): its partitions went to other members`,
    offset_commit_failed: (v, f) =>
      `the offset commit of ${f.i(v.instance)}${v.queue === null ? "" : ` for ${v.queue}${v.offset === null ? "" : ` at offset ${v.offset}`}`} was refused at ${f.t(v.ts)}: it was no longer a member of the group, so the records it had processed stayed uncommitted`,
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
    dedup_hit: (v, f) => `the ${f.layer(v.layer)} on ${f.i(v.instance)} said hit at ${f.t(v.ts)}: the delivery was skipped`,
    dedup_passed: (v, f) => `the delivery to ${f.i(v.instance)} passed the ${f.layers(v.layers)} at ${f.t(v.ts)}`,
    executed_twice: (v, f) => `the business ran twice: on ${f.i(v.firstInstance)} at ${f.t(v.firstTs)} and on ${f.i(v.secondInstance)} at ${f.t(v.secondTs)}`,
    second_failed: (v, f) => `the repeated business attempt on ${f.i(v.instance)} failed at ${f.t(v.ts)}`,
    dedup_keys_differ: (v) => `the two attempts used different dedup keys (${v.first} and ${v.second})`,
    dedup_key_is_msg_id: (v) => `dedup key ${v.dedupKey} contains the msgId ${v.msgId}, not the business key`,
    new_msg_id_passed: (v, f) => `a new msgId passed the ${f.layer(v.layer)} while the first marker was alive: the marker is keyed per message`,
    gap_over_ttl: (v, f) => `the ${f.layer(v.layer)} lives ${f.d(v.ttlMs)}; the second check came ${f.d(v.gapMs)} after the first`,
    gap_within_ttl: (v, f) => `the second check came ${f.d(v.gapMs)} after the first, within the ${f.layer(v.layer)}'s ${f.d(v.ttlMs)}: the marker was missing`,
    concurrent_passes: (v, f) => `${f.i(v.firstInstance)} and ${f.i(v.secondInstance)} both passed the ${f.layer(v.layer)} ${f.d(v.gapMs)} apart`,
    acked_before_effect: (v, f) => `${f.i(v.instance)} acknowledged at ${f.t(v.ackTs)}, before its business committed at ${f.t(v.effectTs)}`,
    only_volatile_layers: (v, f) => `only the ${f.layers(v.layers)} guarded it: nothing durable (DB unique key, state machine) behind the marker`,
    written_twice: (v, f) =>
      `the business table (probe ${v.probe}) holds ${v.rows} rows for the key: written on ${f.i(v.firstInstance)} at ${f.t(v.firstTs)} and on ${f.i(v.secondInstance)} at ${f.t(v.secondTs)}, ${f.d(v.gapMs)} apart (database clock)`,
    written_once: (v, f) => `the business table (probe ${v.probe}) holds one row for the key, written on ${f.i(v.instance)} at ${f.t(v.ts)} (database clock): the effect happened once`,
    not_written: (v, f) => `none of the ${v.rows} rows of the business table (probe ${v.probe}) was written by the delivery to ${f.i(v.instance)} at ${f.t(v.ts)}: each belongs to another delivery`,
    marker_left: (v, f) =>
      v.how === "failed"
        ? `the attempt on ${f.i(v.instance)} failed at ${f.t(v.ts)} and left its ${f.layer(v.layer)} in place (no "released")`
        : v.how === "released_late"
          ? `the attempt on ${f.i(v.instance)} held its ${f.layer(v.layer)} until ${f.t(v.ts)}: it failed and released it only after the other delivery was skipped`
          : `the attempt on ${f.i(v.instance)} passed the ${f.layer(v.layer)} at ${f.t(v.ts)} and never finished, leaving its marker in place`,
    retry_skipped: (v, f) => `the ${f.layer(v.layer)} on ${f.i(v.instance)} skipped the delivery at ${f.t(v.ts)}`,
    never_executed: () => `the business never ran for this key in this group`,
    // The evidence is `tolerant`: describeEvidence adds the tolerance once, so the sentence leaves it out.
    reordered: (v) =>
      v.reason === "retry_times"
        ? `the clocks put the two deliveries the other way round; retryTimes decided the order`
        : v.reason === "failure_first"
          ? `the clocks put the two deliveries the other way round; the failed attempt must come before the redelivery it brought`
          : `the clocks put the two deliveries the other way round; a hit must follow the pass that set the marker`,
  },
  missing: {
    no_pub_trace: (m) => `no Pub trace for msgId ${m.msgId ?? "?"}: producer tracing off?`,
    no_consume_trace: (m) => `no consume trace for group ${m.group ?? "?"}: consumer tracing off?`,
    no_dedup_log: (m) => `no dedup log for group ${m.group ?? "?"}: whether a duplicate was caught cannot be told`,
    no_dedup_line: (m, f) => `no dedup-log line for the delivery to ${f.i(m.instance ?? null)}${m.ts === undefined ? "" : ` at ${f.t(m.ts)}`}`,
    no_client_log: (m, f) => `no client log for instance ${f.i(m.instance ?? null)}`,
    no_broker_log: (m) => `no broker log for group ${m.group ?? "?"}: a consumer that vanished cannot be seen`,
    host_only_identity: (m, f) => `instances on ${f.i(m.instance ?? null)} are named by host only: two processes there look alike`,
    service_only_identity: (m, f) =>
      `the spans of ${f.i(m.instance ?? null)} name only their service: its replicas look alike; set k8s.pod.name or host.name and process.pid in the resource`,
    no_consume_end: (m, f) => `no SubAfter for the delivery to ${f.i(m.instance ?? null)}${m.ts === undefined ? "" : ` at ${f.t(m.ts)}`}: trace dropped, or the process died`,
    no_msg_id: (m) => `deliveries of group ${m.group ?? "?"} carry no msgId`,
    no_event_exchange: (m, f) =>
      `no channel or connection event for ${f.i(m.instance ?? null)} around the deliveries: enable rabbitmq_event_exchange (or ingest the RabbitMQ server log) to see consumers' channels close`,
  },
  advice: {
    marker_ttl_short: (v, f) =>
      `Redis marker TTL ${f.d(v.ttlMs)} is shorter than ${v.sharePct}% of redelivery gaps (longest ${f.d(v.longestGapMs)}); raise it above the longest gap${v.peakConsumeMs === null ? "" : ` and to ≥ 10× peak processing time (${f.d(v.peakConsumeMs)})`}, or rely on the DB unique key`,
    non_atomic_check: (v) => `${v.count} leak(s) came from two checks passing at once on two instances: use one atomic "SET key NX EX" (not GET then SET), or a DB unique key`,
    key_not_business_key: (v) => `${v.count} duplicate(s) passed because the dedup key is not the business key (a new msgId got a new marker): key the marker on the bizKey`,
    marker_not_released: (v) => `${v.count} message(s) were lost: a failed attempt left its marker and the retry was skipped; delete the marker on failure, or write it only after the side effect commits`,
    async_ack: (v) => `${v.count} leak(s) came from acknowledging before the business committed: return CONSUME_SUCCESS only after the side effect is durable`,
    no_durable_layer: (v) => `${v.count} leak(s) passed volatile layers only: add a DB unique key written in the business transaction`,
    rebalance_duplicates: (v) =>
      `${v.count} duplicate(s) (${v.sharePct}%) followed rebalances${v.perHour === null ? "" : ` (${v.perHour} per hour)`}: avoid needless restarts and scaling, shut consumers down with shutdown() so offsets are persisted`,
    ack_lost_duplicates: (v) => `${v.count} duplicate(s) followed consumers that vanished without shutdown: find why they died (OOM kill, crash, network) and shut down cleanly`,
    consume_timeouts: (v, f) =>
      `${v.count} duplicate(s) came from consumption past consumeTimeout${v.peakConsumeMs === null ? "" : ` (peak ${f.d(v.peakConsumeMs)})`}: speed the consumer up or raise consumeTimeout`,
    shared_client_ids: (v) =>
      `${v.count} duplicate(s) came from two processes sharing one clientId: give every consumer process a unique instanceName (clients before 4.9.0 in containers with host networking all default to ip@1)`,
    offset_rollbacks: (v) =>
      `${v.count} duplicate(s) came from consumer offsets reset backwards (resetOffsetByTime, a restored broker, a recreated group): find who reset them, and keep dedup markers for longer than a reset may replay`,
    commit_failures: (v) =>
      `${v.count} duplicate(s) came from consumers that overran max.poll.interval.ms and had their offset commits refused: lower max.poll.records, speed up processing (or hand it off and pause the partition), or raise max.poll.interval.ms`,
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
    commit_failed: "offset commit failed",
    offset_rollback: "offset rollback",
    shared_client_id: "shared clientId",
    broadcast_consumption: "broadcast consumption (by design)",
    invisible_timeout: "invisible time expired",
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
  layer: { bloom: "Bloom filter", redis: "Redis marker", db: "DB unique key", state: "state machine" },
  list: (names) => (names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`),
  separator: "; ",
  coarse: " (broker time, to the second)",
  tolerant: (skew) => ` (within the ±${skew} clock tolerance)`,
  receipt: " (time of receipt by the collector: the firehose carries none)",
  unrecognisedNear: (lines, sources) =>
    `; but ${lines.toLocaleString("en")} skipped ${lines === 1 ? "line" : "lines"} of ${sources} ${lines === 1 ? "looks relevant and was" : "look relevant and were"} not recognised: see the Ingest page, or a patterns file`,
  unknownInstance: "an unknown instance",
  clockNote: (skew) => `the hosts' clocks disagree by ~${skew}`,
  pair: (p, f) =>
    `group ${p.group ?? "?"}${p.topic === null ? "" : ` (topic ${p.topic})`}: ${p.first.id} on ${f.i(p.first.instance)} at ${f.t(p.first.start)} → ${p.second.id} on ${f.i(p.second.instance)} at ${f.t(p.second.start)}`,
  verdict: (v, f, names) => {
    const outcome = v.outcome === "caught" ? (v.layer === undefined ? names.outcome.caught : `caught by the ${f.layer(v.layer)}`) : v.outcome === "leaked" ? `leaked${v.defect === undefined ? "" : ` (${names.defect[v.defect]})`}` : names.outcome.unknown;
    const clocks = v.clockSkewMs > 0 ? ` (the clocks put them the other way round: ${names.clockNote(f.d(v.clockSkewMs))})` : "";
    return `${names.cause[v.cause]} (confidence ${v.confidence.toFixed(2)}), ${outcome}; ${f.d(v.gapMs)} apart${clocks}`;
  },
};
