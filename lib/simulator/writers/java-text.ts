import type { QueueRef } from "../allocation.ts";
import type { ChannelView, MessageView } from "../records.ts";

/** The toString() output of the RocketMQ Java objects that client and broker log lines embed. */

export function messageQueueText(mq: QueueRef): string {
  return `MessageQueue [topic=${mq.topic}, brokerName=${mq.broker}, queueId=${mq.queueId}]`;
}

export function messageQueueSetText(queues: readonly QueueRef[]): string {
  return `[${queues.map(messageQueueText).join(", ")}]`;
}

export function messageExtText(m: MessageView): string {
  const properties = m.properties.map(([k, v]) => `${k}=${v}`).join(", ");
  return (
    `MessageExt [brokerName=${m.brokerName}, queueId=${m.queueId}, storeSize=${m.storeSize}, queueOffset=${m.queueOffset}, sysFlag=0, ` +
    `bornTimestamp=${m.bornTimestamp}, bornHost=/${m.bornHost}, storeTimestamp=${m.storeTimestamp}, storeHost=/${m.storeHost}, ` +
    `msgId=${m.offsetMsgId}, commitLogOffset=${m.commitLogOffset}, bodyCRC=${m.bodyCRC}, reconsumeTimes=${m.reconsumeTimes}, ` +
    `preparedTransactionOffset=0, toString()=Message{topic='${m.topic}', flag=0, properties={${properties}}, body=[${m.body.join(", ")}], transactionId='null'}]`
  );
}

/** `ClientChannelInfo [...]`; a closed channel prints `!` between its addresses. */
export function channelText(c: ChannelView): string {
  return (
    `ClientChannelInfo [channel=[id: ${c.channelId}, L:/${c.brokerAddr} ${c.closed ? "!" : "-"} R:/${c.remoteAddr}], ` +
    `clientId=${c.clientId}, language=JAVA, version=${c.version}, lastUpdateTimestamp=${c.lastUpdateTimestamp}]`
  );
}

/** A few frames of a Java stack trace; these lines have no log prefix, so parsers skip them. */
export function stackTrace(exception: string, frames: readonly string[]): string[] {
  return [exception, ...frames.map((frame) => `\tat ${frame}`)];
}
