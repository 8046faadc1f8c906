import type { TraceRecord } from "../../../collectors/codecs/rocketmq-trace-body.ts";
import { BROKER_NAMES, DEFAULTS, delayOfLevel, QUEUES_PER_BROKER, REGION, type BrokerName } from "../topology.ts";
import { planCheckBack, scheduleDelivery, appendCommitLog, storeHalf, storeSize } from "./broker-ops.ts";
import { storeAndWake } from "./consume.ts";
import type { Sim } from "./sim.ts";
import type { BrokerState, CopyOrigin, Message, ProducerProcess } from "./state.ts";
import { traceRecord } from "./trace-dispatch.ts";

/**
 * Producers: a send makes up to three attempts (sendMsgTimeout 3000 ms, retryTimesWhenSendFailed 2), each to a
 * queue on a broker other than the previous attempt's. An attempt whose broker stored the message but whose answer
 * was lost leaves a stored copy and is retried with the same UNIQ_KEY: the producer-retry duplicate. A failed
 * attempt writes no Pub trace record; the client logs `sendKernelImpl exception, resend at once`.
 */

/**
 * ok: stored, SEND_OK. ack_lost: stored, but the answer never came (exception after the RT; resend).
 * not_ok: stored with a status other than SEND_OK (SLAVE_NOT_AVAILABLE), Pub written with success=false, and
 * retried on another broker (retryAnotherBrokerWhenNotStoreOK).
 */
export type SendOutcome = "ok" | "ack_lost" | "not_ok";
export type TransactionPlan = "commit" | "commit_twice" | "unknown_then_commit";

export interface SendSpec {
  at: number;
  topic: string;
  producerGroup: string;
  bizKey: string;
  tags: string;
  /** Index of the producer host; default: any. */
  producer?: number;
  attempts?: readonly SendOutcome[];
  /** How long until a lost answer turns into an exception. */
  ackLostMs?: readonly [number, number];
  notOkMs?: readonly [number, number];
  /** The first attempt's broker; default: any. */
  broker?: BrokerName;
  delayLevel?: number;
  transaction?: TransactionPlan;
}

type AttemptResult = SendOutcome | "down";

const TIMEOUT_EXCEPTION = (addr: string) =>
  `org.apache.rocketmq.remoting.exception.RemotingTimeoutException: wait response on the channel <${addr}> timeout, ${DEFAULTS.sendMsgTimeoutMs}(ms)`;
const CONNECT_EXCEPTION = (addr: string) => `org.apache.rocketmq.remoting.exception.RemotingConnectException: connect to ${addr} failed`;

export function send(sim: Sim, spec: SendSpec): void {
  sim.at(spec.at, () => {
    const processes = sim.producers.get(spec.producerGroup) ?? [];
    const producer = spec.producer === undefined ? sim.rng.pick(processes) : processes[spec.producer % processes.length];
    if (!producer) throw new Error(`no producer process for ${spec.producerGroup}`);
    attempt(sim, spec, buildMessage(sim, spec, producer), 0, undefined, 0);
  });
}

function buildMessage(sim: Sim, spec: SendSpec, producer: ProducerProcess): Message {
  const body = [...Buffer.from(JSON.stringify({ bizKey: spec.bizKey, amount: sim.rng.int(100, 99_999) }), "utf8")];
  return {
    msgId: producer.host.uniq.next(producer.host.local(sim.now)),
    bizKey: spec.bizKey,
    topic: spec.topic,
    tags: spec.tags,
    producer,
    bornAt: sim.now,
    body,
    bodyCRC: sim.rng.int(1, 2 ** 31 - 1),
    msgType: spec.transaction ? 1 : spec.delayLevel ? 3 : 0,
    ...(spec.delayLevel ? { delayLevel: spec.delayLevel } : {}),
  };
}

function pickBroker(sim: Sim, avoid: BrokerName | undefined): BrokerName {
  const choices = BROKER_NAMES.filter((b) => b !== avoid);
  return sim.rng.pick(choices);
}

function roundTrip(sim: Sim, spec: SendSpec, result: AttemptResult): number {
  switch (result) {
    case "ok":
      return sim.rng.int(1, 9);
    case "down":
      return sim.rng.int(1, 3);
    case "not_ok":
      return sim.rng.ms(...(spec.notOkMs ?? [2, 30]));
    case "ack_lost":
      return sim.rng.ms(...(spec.ackLostMs ?? [50, DEFAULTS.sendMsgTimeoutMs - 100]));
  }
}

function attempt(sim: Sim, spec: SendSpec, message: Message, index: number, avoid: BrokerName | undefined, storedBefore: number): void {
  const brokerName = index === 0 && spec.broker ? spec.broker : pickBroker(sim, avoid);
  const broker = sim.brokers[brokerName];
  const queueId = sim.rng.int(0, QUEUES_PER_BROKER - 1);
  const result: AttemptResult = broker.up ? (spec.attempts?.[index] ?? "ok") : "down";
  const rt = roundTrip(sim, spec, result);
  const startedAt = sim.now;
  const stored = result === "down" ? undefined : store(sim, spec, message, broker, queueId, storedBefore === 0 ? "send" : "producer_retry");
  sim.at(startedAt + rt, () => {
    if (stored && (result === "ok" || result === "not_ok")) {
      traceRecord(sim, message.producer, pubRecord(message, broker, startedAt, rt, stored.offsetMsgId, result === "ok"));
    } else {
      const exception = result === "down" ? CONNECT_EXCEPTION(broker.addr) : TIMEOUT_EXCEPTION(broker.addr);
      sim.clientLine(message.producer, sim.now, { type: "resend", exception });
    }
    if (result === "ok" && spec.transaction && stored?.half) runLocalTransaction(sim, spec.transaction, message, broker, queueId, stored.half);
    const storedNow = storedBefore + (stored ? 1 : 0);
    if (result !== "ok" && index < DEFAULTS.retryTimesWhenSendFailed) sim.at(sim.now + sim.rng.int(0, 2), () => attempt(sim, spec, message, index + 1, brokerName, storedNow));
  });
}

interface Half {
  storedAt: number;
  halfOffset: number;
  commitLogOffset: number;
}

interface Stored {
  offsetMsgId: string;
  half?: Half;
}

/** Stores what one attempt sends; the broker answers with the offsetMsgId of what it wrote. */
function store(sim: Sim, spec: SendSpec, message: Message, broker: BrokerState, queueId: number, origin: CopyOrigin): Stored {
  const ref = { topic: message.topic, broker: broker.name, queueId };
  if (spec.transaction) {
    const { offsetMsgId, halfOffset, commitLogOffset } = storeHalf(broker, message);
    return { offsetMsgId, half: { storedAt: sim.now, halfOffset, commitLogOffset } };
  }
  if (message.delayLevel) {
    const level = message.delayLevel;
    // The answer names the SCHEDULE_TOPIC_XXXX record; the copies in the real topic come when it is due.
    const record = appendCommitLog(broker, storeSize(message));
    scheduleDelivery(sim, broker, sim.now + delayOfLevel(level), true, (again) =>
      storeAndWake(sim, { message, ref, origin: again ? "delayed_double_write" : "send", delayLevel: level }),
    );
    return { offsetMsgId: record.offsetMsgId };
  }
  return { offsetMsgId: storeAndWake(sim, { message, ref, origin }).offsetMsgId };
}

function pubRecord(message: Message, broker: BrokerState, startedAt: number, rt: number, offsetMsgId: string, success: boolean): TraceRecord {
  return {
    type: "Pub",
    timeStamp: message.producer.host.local(startedAt),
    regionId: REGION,
    producerGroup: message.producer.group,
    topic: message.topic,
    msgId: message.msgId,
    tags: message.tags,
    keys: [message.bizKey],
    storeHost: broker.addr,
    bodyLength: message.body.length,
    costTime: rt,
    msgType: message.msgType,
    offsetMsgId,
    success,
  };
}

function endTransactionRecord(message: Message, broker: BrokerState, at: number, state: string, fromCheck: boolean): TraceRecord {
  return {
    type: "EndTransaction",
    timeStamp: message.producer.host.local(at),
    regionId: REGION,
    producerGroup: message.producer.group,
    topic: message.topic,
    msgId: message.msgId,
    tags: message.tags,
    keys: [message.bizKey],
    storeHost: broker.addr,
    msgType: 2,
    transactionId: message.msgId,
    transactionState: state,
    fromTransactionCheck: fromCheck,
  };
}

/**
 * executeLocalTransaction, then EndTransaction. commit_twice: the commit arrives but its op record is lost, so the
 * check-back finds the half unresolved and commits it again — a second copy in the real topic.
 * unknown_then_commit: the producer answers UNKNOW; the check-back commits the only copy (not a duplicate).
 */
function runLocalTransaction(sim: Sim, plan: TransactionPlan, message: Message, broker: BrokerState, queueId: number, half: Half): void {
  const ref = { topic: message.topic, broker: broker.name, queueId };
  sim.at(sim.now + sim.rng.int(20, 300), () => {
    const state = plan === "unknown_then_commit" ? "UNKNOW" : "COMMIT_MESSAGE";
    traceRecord(sim, message.producer, endTransactionRecord(message, broker, sim.now, state, false));
    sim.at(sim.now + sim.rng.int(1, 3), () => {
      if (!broker.up) return;
      if (state === "COMMIT_MESSAGE") storeAndWake(sim, { message, ref, origin: "send" });
      if (plan === "commit") return;
      const origin: CopyOrigin = plan === "commit_twice" ? "transaction_checkback" : "send";
      planCheckBack(sim, broker, half.storedAt, (lineAt) => {
        sim.brokerLine(broker, "transaction", lineAt, { type: "tx_check", topic: message.topic, uniqKey: message.msgId, halfOffset: half.halfOffset, commitLogOffset: half.commitLogOffset });
        checkBack(sim, message, broker, lineAt, () => storeAndWake(sim, { message, ref, origin }));
      });
    });
  });
}

/** checkLocalTransaction on some producer of the group; it answers COMMIT_MESSAGE from its own clock. */
function checkBack(sim: Sim, message: Message, broker: BrokerState, askedAt: number, commit: () => void): void {
  sim.at(askedAt + sim.rng.int(2, 10), () => {
    traceRecord(sim, message.producer, endTransactionRecord(message, broker, sim.now, "COMMIT_MESSAGE", true));
    sim.at(sim.now + sim.rng.int(1, 3), commit);
  });
}
