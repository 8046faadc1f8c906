import { CLUSTER, dlqTopic, retryTopic } from "../topology.ts";
import type { MessageView } from "../records.ts";
import type { Sim } from "./sim.ts";
import type { StoredCopy } from "./state.ts";

/** A stored copy as the consumer's MessageExt toString shows it, with the properties each kind of copy carries. */
export function messageView(sim: Sim, copy: StoredCopy, consumeStartLocal: number): MessageView {
  const broker = sim.broker(copy.queue.ref.broker);
  const message = copy.message;
  const producer = message.producer;
  return {
    brokerName: broker.name,
    queueId: copy.queue.ref.queueId,
    storeSize: copy.storeSize,
    queueOffset: copy.queueOffset,
    bornTimestamp: producer.host.local(message.bornAt),
    bornHost: `${producer.host.ip}:${producer.ports[broker.name]}`,
    storeTimestamp: broker.local(copy.storeAt),
    storeHost: broker.addr,
    offsetMsgId: copy.offsetMsgId,
    commitLogOffset: copy.commitLogOffset,
    bodyCRC: message.bodyCRC,
    reconsumeTimes: copy.reconsumeTimes,
    topic: message.topic,
    properties: properties(copy, String(copy.queue.maxOffset), String(consumeStartLocal)),
    body: message.body,
  };
}

function properties(copy: StoredCopy, maxOffset: string, consumeStart: string): [string, string][] {
  const message = copy.message;
  const common: [string, string][] = [
    ["KEYS", message.bizKey],
    ["CONSUME_START_TIME", consumeStart],
    ["UNIQ_KEY", message.msgId],
    ["CLUSTER", CLUSTER],
  ];
  if ((copy.origin === "retry" || copy.origin === "dlq") && copy.forGroup) {
    const realTopic = copy.origin === "dlq" ? dlqTopic(copy.forGroup) : retryTopic(copy.forGroup);
    return [
      ["MIN_OFFSET", "0"],
      ["REAL_TOPIC", realTopic],
      ["ORIGIN_MESSAGE_ID", copy.originMessageId ?? copy.offsetMsgId],
      ["RETRY_TOPIC", message.topic],
      ["MAX_OFFSET", maxOffset],
      ...common,
      ["WAIT", "false"],
      ["DELAY", String(copy.delayLevel ?? 3)],
      ["TAGS", message.tags],
      ["REAL_QID", "0"],
    ];
  }
  const extra: [string, string][] =
    message.msgType === 1
      ? [["TRAN_MSG", "true"], ["PGROUP", message.producer.group], ["REAL_TOPIC", message.topic], ["REAL_QID", String(copy.queue.ref.queueId)]]
      : message.msgType === 3
        ? [["DELAY", String(message.delayLevel ?? 3)], ["REAL_TOPIC", message.topic], ["REAL_QID", String(copy.queue.ref.queueId)]]
        : [];
  return [["MIN_OFFSET", "0"], ["MAX_OFFSET", maxOffset], ...common, ["WAIT", "true"], ["TAGS", message.tags], ...extra];
}
