import type { TraceRecord } from "../../../collectors/codecs/rocketmq-trace-body.ts";
import type { DedupLayer } from "../../diagnosis/vocabulary.ts";
import { queueKey, type QueueRef } from "../allocation.ts";
import type { DedupStack, PassReason } from "../dedup-layers.ts";
import { clientIdOf, UniqIds } from "../ids.ts";
import type { Rng } from "../random.ts";
import type { BrokerName, GroupSpec } from "../topology.ts";

/** The model's state: hosts and their clocks, brokers and queues, stored message copies, groups and instances. */

export class Host {
  readonly uniq: UniqIds;

  constructor(
    readonly ip: string,
    readonly pid: number,
    readonly skewMs: number,
    rng: Rng,
  ) {
    this.uniq = new UniqIds(ip, pid, rng);
  }

  /** This host's clock reading at true time t. */
  local(t: number): number {
    return t + this.skewMs;
  }

  /** `ip@pid`: how dupscope canonicalises this process. */
  get canonical(): string {
    return `${this.ip}@${this.pid}`;
  }
}

/** A message as the producer built it; its stored copies share its msgId (UNIQ_KEY). */
export interface Message {
  msgId: string;
  bizKey: string;
  topic: string;
  tags: string;
  producer: ProducerProcess;
  bornAt: number;
  body: number[];
  bodyCRC: number;
  /** Trace MessageType ordinal: 0 normal, 1 transactional half, 3 delayed. */
  msgType: 0 | 1 | 3;
  delayLevel?: number;
}

/**
 * Why a copy exists. "send" is the first stored copy of a msgId in its topic; the others are the extra copies that
 * make duplicates (a producer retry, a delayed message written twice, a transaction committed twice) or the
 * consumer-side copies (a retry, a dead letter).
 */
export type CopyOrigin = "send" | "producer_retry" | "delayed_double_write" | "transaction_checkback" | "retry" | "dlq";
export type RetryReason = "consume_timeout" | "failure";

export interface StoredCopy {
  id: number;
  message: Message;
  queue: QueueState;
  queueOffset: number;
  commitLogOffset: number;
  offsetMsgId: string;
  storeAt: number;
  storeSize: number;
  origin: CopyOrigin;
  reconsumeTimes: number;
  retryReason?: RetryReason;
  /** Retry and DLQ copies: the offsetMsgId of the copy the consumer sent back. */
  originMessageId?: string;
  /** The group a retry or DLQ copy belongs to. */
  forGroup?: string;
  /** Retry and DLQ copies: the delivery whose failure or timeout sent the message back. */
  parentSeq?: number;
  delayLevel?: number;
  /** The instance of each group that last pulled this copy: a second pull is a redelivery. */
  lastPulledBy: Map<string, ConsumerInstance>;
  /** When each group last pulled it: a pull again after the group's offsets were reset back is an offset rollback. */
  lastPulledAt: Map<string, number>;
}

export class QueueState {
  readonly key: string;
  readonly copies: StoredCopy[] = [];

  constructor(
    readonly ref: QueueRef,
    readonly baseOffset: number,
  ) {
    this.key = queueKey(ref);
  }

  get maxOffset(): number {
    return this.baseOffset + this.copies.length;
  }

  copyAt(offset: number): StoredCopy | undefined {
    return this.copies[offset - this.baseOffset];
  }
}

/** A delayed message (or a consumer retry) waiting in SCHEDULE_TOPIC_XXXX for its delay level. */
export interface ScheduleEntry {
  dueAt: number;
  deliveredAt?: number;
  /** Delayed messages are written again after a broker restart if their delivery was not yet persisted. */
  rewritable: boolean;
  /** Writes the copy into its real topic; `again` for the second write after a restart. */
  write: (again: boolean) => void;
  /** Set when a restart forgot this entry's delivery: the next write is a second copy. */
  again?: boolean;
}

export class BrokerState {
  up = true;
  commitLogOffset: number;
  readonly schedule: ScheduleEntry[] = [];
  /** Check-back cycles already planned, by tick time. */
  readonly txCycles = new Map<number, ((lineAt: number) => void)[]>();
  halfQueueOffset: number;

  constructor(
    readonly name: BrokerName,
    readonly ip: string,
    readonly port: number,
    readonly skewMs: number,
    readonly phases: { scan: number; delayPersist: number; txCheck: number },
    rng: Rng,
  ) {
    this.commitLogOffset = rng.int(1, 40) * 1_073_741_824 + rng.int(0, 1_000_000_000);
    this.halfQueueOffset = rng.int(100, 5000);
  }

  get addr(): string {
    return `${this.ip}:${this.port}`;
  }

  local(t: number): number {
    return t + this.skewMs;
  }

  get brokerLog(): string {
    return `broker.${this.name}.log`;
  }

  get transactionLog(): string {
    return `transaction.${this.name}.log`;
  }
}

export class ProcessQueue {
  readonly key: string;
  readonly inflight = new Set<number>();
  dropped = false;
  pullScheduled = false;

  constructor(
    readonly ref: QueueRef,
    public nextOffset: number,
  ) {
    this.key = queueKey(ref);
  }

  /** ProcessQueue.removeMessage: the smallest offset still being consumed, or everything pulled so far. */
  commitOffset(): number {
    let min = this.nextOffset;
    for (const offset of this.inflight) if (offset < min) min = offset;
    return min;
  }
}

/** A trace dispatcher's pending records; the model flushes them in batches (see trace-dispatch.ts). */
export interface TraceBuffer {
  bornHost: string;
  pending: TraceRecord[];
  /** Bumped on every flush and crash, so a flush scheduled for an older batch does nothing. */
  generation: number;
}

export class ProducerProcess {
  readonly clientId: string;
  readonly ports: Record<BrokerName, number>;
  readonly trace: TraceBuffer;

  constructor(
    readonly group: string,
    readonly host: Host,
    rng: Rng,
  ) {
    this.clientId = clientIdOf(host.ip, host.pid, rng.int(1e12, 9e12));
    this.ports = { "broker-a": rng.int(32768, 60999), "broker-b": rng.int(32768, 60999) };
    this.trace = { bornHost: `${host.ip}:${rng.int(32768, 60999)}`, pending: [], generation: 0 };
  }

  get clientLog(): string {
    return `rocketmq_client-${this.host.canonical}.log`;
  }
}

export type InstanceState = "running" | "crashed" | "stopped";

export class ConsumerInstance {
  readonly clientId: string;
  state: InstanceState = "running";
  readonly pqs = new Map<string, ProcessQueue>();
  readonly attempts = new Set<Attempt>();
  readonly trace: TraceBuffer;
  /** Client-side connection to each broker: its ephemeral port and the broker's channel id. */
  readonly channels: Record<BrokerName, { port: number; id: string }>;
  readonly phases: { rebalance: number; persist: number; heartbeat: number; expire: number };
  persistScheduled = false;

  constructor(
    readonly group: GroupState,
    readonly host: Host,
    readonly startedAt: number,
    rng: Rng,
    /** A configured instanceName (`ip@name` then, shared by every process on the host that sets it) instead of the pid. */
    instanceName?: string,
  ) {
    const nanotime = rng.int(1e12, 9e12);
    this.clientId = instanceName === undefined ? clientIdOf(host.ip, host.pid, nanotime) : `${host.ip}@${instanceName}`;
    this.trace = { bornHost: `${host.ip}:${rng.int(32768, 60999)}`, pending: [], generation: 0 };
    const channel = () => ({ port: rng.int(32768, 60999), id: `0x${rng.hex(8).toLowerCase()}` });
    this.channels = { "broker-a": channel(), "broker-b": channel() };
    this.phases = {
      rebalance: startedAt + rng.int(0, 19_999),
      persist: startedAt + rng.int(0, 4_999),
      heartbeat: startedAt + rng.int(0, 29_999),
      expire: startedAt + rng.int(0, 899_999),
    };
  }

  get running(): boolean {
    return this.state === "running";
  }

  get clientLog(): string {
    return `rocketmq_client-${this.host.canonical}.log`;
  }

  get dedupLog(): string {
    return `dedup-${this.host.canonical}.log`;
  }
}

/** How the consuming application treats one business key (set by scenarios; the default is a plain success). */
export interface Behavior {
  /** The first this-many attempts that reach the business fail. */
  failures: number;
  /** clean: rolled back, no side effect; after_effect: the side effect committed, then a later step failed. */
  failMode: "clean" | "after_effect";
  /** The first attempt hangs until this long after the consume-timeout send-back. */
  stuckMs?: number;
  /** After the message dead-letters, the dashboard resends it this long after it entered the DLQ (each entry one resend). */
  dlqReplaysMs: number[];
}

export type Effect = "pending" | "executed" | "failed_clean" | "failed_after_effect" | "skipped";

/** One delivery of a message copy to an instance of a group: the unit truth.json is computed from. */
export interface Delivery {
  seq: number;
  group: string;
  topic: string;
  bizKey: string;
  msgId: string;
  offsetMsgId: string;
  origin: CopyOrigin;
  retryReason?: RetryReason;
  /** Retry and DLQ copies: the delivery that sent the message back. */
  parentSeq?: number;
  instance: string;
  start: number;
  retryTimes: number;
  /** consumeMessageDirectly (dashboard / DLQ resend): no consume trace. */
  direct: boolean;
  /** Set when the same stored copy was pulled before by this group: why it came again. */
  redelivery?: "rebalance" | "ack_lost" | "offset_rollback" | "shared_client_id" | "broadcast_consumption";
  effect: Effect;
  hitBy?: DedupLayer;
  passReason?: PassReason;
}

export interface Attempt {
  id: number;
  instance: ConsumerInstance;
  pq: ProcessQueue | undefined;
  copy: StoredCopy;
  delivery: Delivery;
  requestId: string;
  start: number;
  /** When the consume call returns (planned at start). */
  returnAt: number;
  returned: boolean;
}

export class GroupState {
  readonly members: ConsumerInstance[] = [];
  readonly committed = new Map<string, number>();
  readonly behaviors = new Map<string, Behavior>();
  /** Business keys whose side effect happened in this group: a failure is only scripted before the first one. */
  readonly effects = new Set<string>();
  /** Attempts per business key not yet settled (consume returned and, for async business, the worker done). */
  readonly inflight = new Map<string, number>();
  nextHost = 11;
  /** When an operator last reset the group's offsets back (mqadmin resetOffsetByTime). */
  lastResetAt: number | undefined;

  constructor(
    readonly spec: GroupSpec,
    readonly dedup: DedupStack,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  /** Registered members in clientId order, the order AVG allocation uses. */
  cids(): string[] {
    return this.members.map((m) => m.clientId).sort();
  }
}
