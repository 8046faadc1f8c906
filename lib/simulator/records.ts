import type { TraceRecord } from "../../collectors/codecs/rocketmq-trace-body.ts";
import type { DedupLayer } from "../diagnosis/vocabulary.ts";
import type { QueueRef } from "./allocation.ts";

/**
 * What the model writes, before it becomes text: typed entries per output file, stamped with the writing host's
 * own clock. The writers in ./writers turn them into the real formats.
 */

/** The fields of a MessageExt that its toString prints (client log lines about consumed messages). */
export interface MessageView {
  brokerName: string;
  queueId: number;
  storeSize: number;
  queueOffset: number;
  bornTimestamp: number;
  bornHost: string;
  storeTimestamp: number;
  storeHost: string;
  offsetMsgId: string;
  commitLogOffset: number;
  bodyCRC: number;
  reconsumeTimes: number;
  /** The topic the listener sees (a retry's original topic, restored by the client). */
  topic: string;
  properties: readonly (readonly [string, string])[];
  body: readonly number[];
}

export type ClientEvent =
  | { type: "consumer_start"; group: string }
  | { type: "factory_start"; clientId: string }
  | { type: "producer_start"; group: string }
  | { type: "notification"; brokerAddr: string; group: string }
  | { type: "remove_mq"; group: string; mq: QueueRef }
  | { type: "add_mq"; group: string; mq: QueueRef }
  | { type: "rebalance_result"; group: string; topic: string; clientId: string; mqAllSize: number; cidAllSize: number; queues: QueueRef[] }
  | { type: "dropped"; group: string; mq: QueueRef; message: MessageView }
  | { type: "expire_back"; group: string; message: MessageView }
  | { type: "consume_exception"; group: string; error: string; mq: QueueRef; message: MessageView }
  | { type: "resend"; exception: string }
  | { type: "direct"; message: MessageView }
  | { type: "consumer_shutdown"; group: string }
  | { type: "reset_offset"; brokerAddr: string; topic: string; group: string; timestamp: number };

export interface ClientEntry {
  /** Host clock, epoch ms. */
  at: number;
  /** Number of the worker thread, for lines written by a thread pool. */
  thread: number;
  event: ClientEvent;
}

/** A broker's ClientChannelInfo, as its toString prints it. */
export interface ChannelView {
  channelId: string;
  brokerAddr: string;
  remoteAddr: string;
  clientId: string;
  version: number;
  lastUpdateTimestamp: number;
  closed: boolean;
}

export type BrokerEvent =
  | { type: "consumer_connected"; group: string; messageModel: "CLUSTERING" | "BROADCASTING"; channel: ChannelView }
  | { type: "consumer_unregistered"; group: string; channel: ChannelView }
  | { type: "channel_inactive"; group: string; channel: ChannelView }
  | { type: "channel_expired"; group: string; remoteAddr: string }
  | { type: "broker_boot"; brokerName: string; brokerAddr: string }
  | { type: "tx_check_begin"; beginTime: number }
  | { type: "tx_check"; topic: string; uniqKey: string; halfOffset: number; commitLogOffset: number }
  | { type: "tx_check_end"; costMs: number }
  | { type: "reset_offset_started"; by: string; topic: string; group: string; timestamp: number }
  | { type: "reset_offset_success"; topic: string; group: string; clientId: string };

export interface BrokerEntry {
  /** Broker clock, epoch ms (printed to the second). */
  at: number;
  event: BrokerEvent;
}

/** One dedup log v1 line (docs/dedup-log.md). */
export interface DedupRecord {
  ts: number;
  bizKey: string;
  msgId: string;
  group: string;
  topic: string;
  instance: string;
  layer: DedupLayer | "none";
  decision: "pass" | "hit" | "executed" | "failed" | "released";
  retryTimes: number;
  queueId: string;
  queueOffset: number;
  dedupKey?: string;
  ttlMs?: number;
  error?: string;
}

export interface TraceMessageOut {
  bornHost: string;
  records: TraceRecord[];
  storeTimestamp: number;
  msgId: string;
}

export interface ClientLogFile {
  instance: string;
  pid: number;
  entries: ClientEntry[];
}

export interface BrokerLogFile {
  broker: string;
  entries: BrokerEntry[];
}

export interface DedupLogFile {
  instance: string;
  records: DedupRecord[];
}

/** Every output of one run, by file name. Entries are appended in simulation order and sorted by the writers. */
export class Outputs {
  readonly client = new Map<string, ClientLogFile>();
  readonly broker = new Map<string, BrokerLogFile>();
  readonly dedup = new Map<string, DedupLogFile>();
  readonly trace: TraceMessageOut[] = [];

  clientLog(file: string, instance: string, pid: number): ClientLogFile {
    let log = this.client.get(file);
    if (!log) {
      log = { instance, pid, entries: [] };
      this.client.set(file, log);
    }
    return log;
  }

  brokerLog(file: string, broker: string): BrokerLogFile {
    let log = this.broker.get(file);
    if (!log) {
      log = { broker, entries: [] };
      this.broker.set(file, log);
    }
    return log;
  }

  dedupLog(file: string, instance: string): DedupLogFile {
    let log = this.dedup.get(file);
    if (!log) {
      log = { instance, records: [] };
      this.dedup.set(file, log);
    }
    return log;
  }
}
