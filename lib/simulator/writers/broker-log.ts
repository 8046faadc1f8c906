import { gmt8 } from "../clock.ts";
import type { BrokerEntry, BrokerEvent } from "../records.ts";
import { channelText } from "./java-text.ts";

/** broker.log and transaction.log in the broker pattern `%d{yyy-MM-dd HH:mm:ss,GMT+8} %p %t - %m%n` (whole seconds). */

function parts(event: BrokerEvent): { level: string; thread: string; message: string } {
  switch (event.type) {
    case "consumer_connected":
      return {
        level: "INFO",
        thread: `HeartbeatThread_${(Number(event.channel.remoteAddr.split(":")[1]) % 8) + 1}`,
        message: `new consumer connected, group: ${event.group} CONSUME_PASSIVELY ${event.messageModel} channel: ${channelText(event.channel)}`,
      };
    case "consumer_unregistered":
      return { level: "INFO", thread: "ClientManageThread_1", message: `unregister a consumer[${event.group}] from consumerGroupInfo ${channelText(event.channel)}` };
    case "channel_inactive":
      return {
        level: "WARN",
        thread: "NettyEventExecutor",
        message: `NETTY EVENT: remove not active channel[${channelText(event.channel)}] from ConsumerGroupInfo groupChannelTable, consumer group: ${event.group}`,
      };
    case "channel_expired":
      return {
        level: "WARN",
        thread: "ClientHousekeepingScheduledThread1",
        message: `SCAN: remove expired channel from ConsumerManager consumerTable. channel=${event.remoteAddr}, consumerGroup=${event.group}`,
      };
    case "broker_boot":
      return { level: "INFO", thread: "main", message: `The broker[${event.brokerName}, ${event.brokerAddr}] boot success. serializeType=JSON and name server is 10.0.0.1:9876` };
    case "tx_check_begin":
      return { level: "INFO", thread: "TransactionalMessageCheckService", message: `Begin to check prepare message, begin time:${event.beginTime}` };
    case "tx_check":
      return {
        level: "INFO",
        thread: "TransactionalMessageCheckService",
        message: `Check transaction. real_topic=${event.topic},uniqKey=${event.uniqKey},offset=${event.halfOffset},commitLogOffset=${event.commitLogOffset}`,
      };
    case "reset_offset_started":
      return { level: "INFO", thread: "AdminBrokerThread_4", message: `[reset-offset] reset offset started by ${event.by}. topic=${event.topic}, group=${event.group}, timestamp=${event.timestamp}, isForce=true` };
    case "reset_offset_success":
      return { level: "INFO", thread: "AdminBrokerThread_4", message: `[reset-offset] reset offset success. topic=${event.topic}, group=${event.group}, clientId=${event.clientId}` };
    case "tx_check_end":
      return { level: "INFO", thread: "TransactionalMessageCheckService", message: `End to check prepare message, consumed time:${event.costMs}` };
  }
}

export function formatBrokerEntry(entry: BrokerEntry): string {
  const { level, thread, message } = parts(entry.event);
  return `${gmt8(entry.at, "s")} ${level} ${thread} - ${message}`;
}
