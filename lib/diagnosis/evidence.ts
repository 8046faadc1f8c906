/**
 * Evidence is data: a code, the events it rests on and the values a sentence needs. The sentences themselves are
 * built outside lib/diagnosis, in lib/i18n/diagnosis-text.ts only, in every language, so a rule never formats text
 * and a test can check a rule without depending on wording. Times are epoch ms; `coarse` marks a fact that rests on a second-precision timestamp
 * (broker log), `tolerant` one that holds only within the clock-skew allowance, and `receipt` one whose time is
 * when a collector received the record (the RabbitMQ firehose carries no timestamp of its own).
 */

type Instance = string | null;

export interface EvidenceValues {
  // what was stored by the producer
  stored_copies: { msgId: string; copies: number; offsetMsgIds: string; spanMs: number };
  send_failed_then_retried: { msgId: string; instance: Instance; ts: number; costMs: number | null };
  producer_resend_logged: { instance: Instance; ts: number; msgId: string | null };
  /** broker: whose producer setting the window stands for (RocketMQ sendMsgTimeout, or a publisher's confirm wait). */
  within_send_window: { gapMs: number; windowMs: number; broker: string | null };
  beyond_send_window: { gapMs: number; windowMs: number; broker: string | null };
  single_stored_copy: { msgId: string; offsetMsgId: string };
  copies_differ: { first: string; second: string };
  /** RabbitMQ delivered the second copy with `redelivered` false: the queue had never handed this copy out before. */
  not_redelivered: { instance: Instance; ts: number };
  same_copy: { copy: string };
  first_deliveries: Record<string, never>;
  same_msg_id: { msgId: string };
  different_msg_ids: { first: string; second: string };
  /** Kafka: two records of one key from one producer within its send window, the earlier one failed or unsent. */
  kafka_send_retried: { firstMsgId: string; secondMsgId: string; instance: Instance; gapMs: number; windowMs: number; failed: boolean };
  /** RocketMQ 5: the same message id came again sooner than any redelivery can (the shortest invisible duration): another stored copy. */
  too_soon_for_redelivery: { gapMs: number; minInvisibleMs: number };
  /** Kafka: a record of the key no send span wrote, just before the one the producer's send reported (a client-internal retry). */
  copy_without_send: { msgId: string; sentMsgId: string; queue: string | null };
  published_twice: { firstMsgId: string; secondMsgId: string; firstTs: number; secondTs: number; firstHost: Instance; secondHost: Instance };
  // queue ownership
  /** `between`: after the first delivery began; `before`: just before it, while the old owner still held pulled messages. */
  queue_moved: { topic: string | null; queue: string; from: Instance; to: Instance; ts: number; position: "between" | "before" };
  /**
   * From the group's holdings over time (holdings.ts), when the context holds no line of the old owner giving the queue
   * up: `from` held it since `since` (null: since before anything ingested says; `expired`: its line is gone with the
   * raw events' retention) and `to` took it at `ts` while `from` was still connected.
   */
  queue_taken_over: { topic: string; queue: string; from: string; since: number | null; expired?: true; to: string; ts: number; position: "between" | "before" };
  queue_removed: { topic: string | null; queue: string; instance: Instance; ts: number };
  queue_added: { topic: string | null; queue: string; instance: Instance; ts: number };
  queue_dropped_mid_consume: { queue: string | null; instance: Instance; ts: number; msgId: string | null };
  group_rebalanced: { group: string | null; instance: Instance; ts: number };
  /** beforeFirstMs: how long before the first delivery (≤ 0: between the two); intervalMs: the rebalance interval. */
  member_joined: { instance: Instance; ts: number; beforeFirstMs: number; intervalMs: number };
  member_left: { instance: Instance; ts: number; beforeFirstMs: number; intervalMs: number };
  owner_still_alive: { instance: Instance; ts: number };
  /** Kafka, spans alone: another member of the group processed the same record, so its partition was reassigned before the first's offset commit. */
  same_record_other_instance: { queue: string | null; offset: number | null; from: Instance; to: Instance };
  // the old owner vanished
  channel_lost: { instance: Instance; action: string; ts: number };
  no_shutdown: { instance: Instance };
  process_restarted: { host: string; oldInstance: Instance; newInstance: Instance; ts: number };
  owner_went_silent: { instance: Instance; lastTs: number };
  redelivered_flag: { instance: Instance; ts: number };
  partition_lost: { queue: string | null; instance: Instance; ts: number };
  // consumer retries
  /** `poll_timeout` is no longer produced (Kafka's poll timeout is commit_failed's); verdicts stored before still carry it. */
  consume_timed_out: { instance: Instance; ts: number; costMs: number | null; via: "trace" | "expire_msg_back" | "duration" | "poll_timeout" | "ack_timeout" };
  /**
   * The group's offsets were reset back: an operator's resetOffsetByTime (`by` the admin's address, from the broker
   * log), the client's `invoke reset offset operation from broker`, or Kafka's reset. `resetTo`: the time it rewound to.
   * A client that moved one queue back after the broker answered OFFSET_ILLEGAL names it and the offsets instead, as
   * does a Kafka consumer resetting a partition (`toOffset` alone when no line before the reset said where it was).
   */
  offset_reset: {
    instance: Instance;
    ts: number;
    group: string | null;
    topic: string | null;
    resetTo: number | null;
    by: string | null;
    queue?: string;
    fromOffset?: number;
    toOffset?: number;
    /**
     * Why the client moved the queue: the RocketMQ broker answered OFFSET_ILLEGAL, a Kafka fetch position was out of
     * range or the group had no committed offset for it (auto.offset.reset decided both), or the application seeked.
     */
    reason?: "offset_illegal" | "out_of_range" | "seek" | "no_committed_offset";
  };
  /**
   * Two processes of `host` connected to one broker with the same clientId (`remotes`: their two local addresses; `ts`:
   * the later connection) and consumed the pair (`instances`).
   */
  /** expired: a connect line is gone (raw retention); only the group's state over time holds it, connected `since` then. */
  client_id_shared: { clientId: string; host: string; remotes: [string, string]; ts: number; instances: [Instance, Instance]; expired?: true; since?: number };
  /**
   * The pair's group consumes in BROADCASTING mode, as the line at `ts` says: a consumer connecting, one starting
   * (`startedWith`), or its consumer span (`inSpans`).
   */
  broadcasting_group: { group: string; instance: Instance; ts: number; startedWith?: true; inSpans?: true; expired?: true };
  /** Kafka: the consumer went longer than max.poll.interval.ms between polls and left the group (`exceededMs` when the client says by how much). */
  poll_interval_exceeded: { instance: Instance; ts: number; exceededMs: number | null };
  /** Kafka: the consumer's offset commit was refused (`offset`: the next offset it tried to commit); `membershipLost`: it was no longer a member. */
  offset_commit_failed: { instance: Instance; ts: number; queue: string | null; offset: number | null; membershipLost: boolean };
  consume_failed: { instance: Instance; ts: number; contextName: string | null };
  /** RocketMQ 5: the message was delivered again while the first attempt still ran: its invisible duration had expired. */
  redelivered_while_processing: { instance: Instance; secondInstance: Instance; firstEnd: number; secondStart: number };
  /** RocketMQ 5: the first attempt ended without an error, yet the message came again: its ack never settled it in time. */
  redelivered_without_failure: { instance: Instance; firstEnd: number; gapMs: number };
  /** RocketMQ 5 client log: settling the message (`ack`, or extending its lease) was refused: the receipt handle had expired. */
  receipt_handle_expired: { instance: Instance; ts: number; msgId: string; operation: "ack" | "change_invisible_duration"; status: string | null };
  effect_before_failure: { instance: Instance; effectTs: number; failTs: number };
  retry_delivery: { from: number; to: number };
  retry_on_schedule: { retryTimes: number; expectedMs: number; gapMs: number };
  retry_after_success: { instance: Instance };
  inherited: { delivery: string; cause: string };
  /** Both deliveries descend from one copy of round `retryTimes` that `first` and `second` both consumed. */
  retry_chains_forked: { first: string; second: string; retryTimes: number; cause: string };
  // replays
  consumed_directly: { instance: Instance; ts: number };
  dlq_topic: { topic: string };
  republished_to_retry: { topic: string; producerGroup: string | null; ts: number };
  retries_exhausted: { retryTimes: number; max: number };
  /** RabbitMQ `x-death`: the copy was dead-lettered from `queue` (`count` times, the last at `ts`) before coming back. */
  dead_lettered: { queue: string | null; reason: string | null; count: number | null; ts: number | null };
  /** RabbitMQ `x-shovelled`: a shovel moved the copy. */
  shovelled: { shovel: string | null; from: string | null; to: string | null };
  delivery_without_trace: { instance: Instance; ts: number };
  // delayed and transactional messages
  delay_message: { msgId: string; msgType: string };
  tx_commit: { msgId: string; ts: number; fromCheck: boolean; state: string };
  tx_checkback: { msgId: string; ts: number };
  // outcome and defects
  dedup_hit: { layer: string; instance: Instance; ts: number };
  dedup_passed: { layers: string; instance: Instance; ts: number };
  executed_twice: { firstInstance: Instance; firstTs: number; secondInstance: Instance; secondTs: number };
  second_failed: { instance: Instance; ts: number };
  dedup_keys_differ: { first: string; second: string };
  dedup_key_is_msg_id: { dedupKey: string; msgId: string };
  new_msg_id_passed: { layer: string };
  gap_over_ttl: { gapMs: number; ttlMs: number; layer: string };
  gap_within_ttl: { gapMs: number; ttlMs: number; layer: string };
  concurrent_passes: { gapMs: number; firstInstance: Instance; secondInstance: Instance; layer: string };
  acked_before_effect: { instance: Instance; ackTs: number; effectTs: number };
  /**
   * Business-table rows read by `dupscope probe` (database clock): `rows` for the key in the group; the two writes of
   * the leak, `gapMs` apart; the one write of an effect that happened once; none written by the duplicate.
   */
  written_twice: { probe: string; rows: number; firstInstance: Instance; firstTs: number; secondInstance: Instance; secondTs: number; gapMs: number };
  written_once: { probe: string; instance: Instance; ts: number };
  not_written: { probe: string; rows: number; instance: Instance; ts: number };
  only_volatile_layers: { layers: string };
  /**
   * `failed`: the business failed and the marker stayed; `unfinished`: the attempt never finished (the process died);
   * `released_late`: it failed and released the marker (at `ts`), but only after the other delivery met it.
   */
  marker_left: { layer: string; instance: Instance; ts: number; how: "failed" | "unfinished" | "released_late" };
  retry_skipped: { layer: string; instance: Instance; ts: number };
  never_executed: Record<string, never>;
  // ordering
  reordered: { reason: "retry_times" | "dedup_order" | "failure_first"; toleranceMs: number };
}

export type EvidenceCode = keyof EvidenceValues;

/** Which question an evidence answers: why it was delivered again, whether it was caught, what is broken. */
export type EvidenceRole = "cause" | "outcome" | "defect" | "lost";

export type Evidence = {
  [C in EvidenceCode]: {
    code: C;
    role: EvidenceRole;
    eventIds: string[];
    values: EvidenceValues[C];
    coarse?: boolean;
    tolerant?: boolean;
    receipt?: boolean;
  };
}[EvidenceCode];

export interface EvidenceFlags {
  coarse?: boolean;
  tolerant?: boolean;
  receipt?: boolean;
}

/**
 * One item per fact: two lines that say the same thing (a member's connect logged by both brokers in one second)
 * read as one piece of evidence citing both, not as the same sentence twice.
 */
export function mergeRepeatedEvidence(list: readonly Evidence[]): Evidence[] {
  const byFact = new Map<string, Evidence>();
  for (const e of list) {
    const fact = JSON.stringify([e.code, e.role, e.values, e.coarse ?? false, e.tolerant ?? false, e.receipt ?? false]);
    const seen = byFact.get(fact);
    if (seen === undefined) byFact.set(fact, { ...e, eventIds: [...e.eventIds] });
    else for (const id of e.eventIds) if (!seen.eventIds.includes(id)) seen.eventIds.push(id);
  }
  return [...byFact.values()];
}

export function evidence<C extends EvidenceCode>(
  code: C,
  role: EvidenceRole,
  eventIds: readonly (string | null | undefined)[],
  values: EvidenceValues[C],
  flags: EvidenceFlags = {},
): Evidence {
  const ids = [...new Set(eventIds.filter((id): id is string => typeof id === "string"))];
  const item = { code, role, eventIds: ids, values } as Evidence;
  if (flags.coarse) item.coarse = true;
  if (flags.tolerant) item.tolerant = true;
  if (flags.receipt) item.receipt = true;
  return item;
}
