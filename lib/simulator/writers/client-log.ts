import { gmt8 } from "../clock.ts";
import type { ClientEntry, ClientEvent } from "../records.ts";
import { messageExtText, messageQueueSetText, messageQueueText, stackTrace } from "./java-text.ts";

/**
 * rocketmq_client.log in the 5.x remoting client's pattern:
 * `%d{yyy-MM-dd HH:mm:ss.SSS,GMT+8} %-5p [%pid] [%t] [%logger{12}#%M:%L] - %m%n`.
 */

interface Line {
  level: "INFO" | "WARN";
  thread: string;
  /** `%logger{12}#%M:%L` */
  location: string;
  message: string;
  trace?: string[];
}

const REBALANCE = "o.a.r.c.i.c.RebalanceImpl";
const CONSUME_REQUEST = "o.a.r.c.i.c.ConsumeMessageConcurrentlyService$ConsumeRequest#run";

const PRODUCER_FRAMES = [
  "org.apache.rocketmq.remoting.netty.NettyRemotingAbstract.invokeSyncImpl(NettyRemotingAbstract.java:540)",
  "org.apache.rocketmq.client.impl.MQClientAPIImpl.sendMessageSync(MQClientAPIImpl.java:668)",
  "org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl.sendKernelImpl(DefaultMQProducerImpl.java:1021)",
  "org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl.sendDefaultImpl(DefaultMQProducerImpl.java:652)",
];

const LISTENER_FRAMES = [
  "com.example.consumer.BusinessListener.consumeMessage(BusinessListener.java:63)",
  "org.apache.rocketmq.client.impl.consumer.ConsumeMessageConcurrentlyService$ConsumeRequest.run(ConsumeMessageConcurrentlyService.java:433)",
  "java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)",
];

function lineOf(event: ClientEvent, thread: number): Line {
  switch (event.type) {
    case "factory_start":
      return { level: "INFO", thread: "main", location: "o.a.r.c.i.f.MQClientInstance#start:313", message: `the client factory [${event.clientId}] start OK` };
    case "consumer_start":
      return { level: "INFO", thread: "main", location: "o.a.r.c.i.c.DefaultMQPushConsumerImpl#start:745", message: `the consumer [${event.group}] start OK.` };
    case "producer_start":
      return { level: "INFO", thread: "main", location: "o.a.r.c.i.p.DefaultMQProducerImpl#start:268", message: `the producer [${event.group}] start OK. sendMessageWithVIPChannel=false` };
    case "notification":
      return {
        level: "INFO",
        thread: `NettyClientPublicExecutor_${thread}`,
        location: "o.a.r.c.i.ClientRemotingProcessor#notifyConsumerIdsChanged:178",
        message: `receive broker's notification[${event.brokerAddr}], the consumer group: ${event.group} changed, rebalance immediately`,
      };
    case "remove_mq":
      return { level: "INFO", thread: "RebalanceService", location: `${REBALANCE}#updateProcessQueueTableInRebalance:452`, message: `doRebalance, ${event.group}, remove unnecessary mq, ${messageQueueText(event.mq)}` };
    case "add_mq":
      return { level: "INFO", thread: "RebalanceService", location: `${REBALANCE}#updateProcessQueueTableInRebalance:489`, message: `doRebalance, ${event.group}, add a new mq, ${messageQueueText(event.mq)}` };
    case "rebalance_result":
      return {
        level: "INFO",
        thread: "RebalanceService",
        location: `${REBALANCE}#rebalanceByTopic:322`,
        message:
          `client rebalanced result changed. allocateMessageQueueStrategyName=AVG, group=${event.group}, topic=${event.topic}, clientId=${event.clientId}, ` +
          `mqAllSize=${event.mqAllSize}, cidAllSize=${event.cidAllSize}, rebalanceResultSize=${event.queues.length}, rebalanceResultSet=${messageQueueSetText(event.queues)}`,
      };
    case "dropped":
      return {
        level: "WARN",
        thread: `ConsumeMessageThread_${event.group}_${thread}`,
        location: `${CONSUME_REQUEST}:472`,
        message: `processQueue is dropped without process consume result. messageQueue=${messageQueueText(event.mq)}, msgs=[${messageExtText(event.message)}]`,
      };
    case "expire_back":
      return {
        level: "INFO",
        thread: `ConsumeMessageScheduledThread_${event.group}_1`,
        location: "o.a.r.c.i.c.ProcessQueue#cleanExpiredMsg:111",
        message: `send expire msg back. topic=${event.message.topic}, msgId=${uniqKey(event.message.properties)}, storeHost=/${event.message.storeHost}, queueId=${event.message.queueId}, queueOffset=${event.message.queueOffset}`,
      };
    case "consume_exception":
      return {
        level: "WARN",
        thread: `ConsumeMessageThread_${event.group}_${thread}`,
        location: `${CONSUME_REQUEST}:436`,
        message: `consumeMessage exception: ${event.error}, ${LISTENER_FRAMES[0]} Group: ${event.group} Msgs: [${messageExtText(event.message)}] MQ: ${messageQueueText(event.mq)}`,
        trace: stackTrace(event.error, LISTENER_FRAMES),
      };
    case "resend":
      // The 5.x client passes these arguments to slf4j with %s placeholders, which slf4j leaves unfilled.
      return {
        level: "WARN",
        thread: "main",
        location: "o.a.r.c.i.p.DefaultMQProducerImpl#sendDefaultImpl:665",
        message: "sendKernelImpl exception, resend at once, InvokeID: %s, RT: %sms, Broker: %s",
        trace: stackTrace(event.exception, PRODUCER_FRAMES),
      };
    case "direct":
      return {
        level: "INFO",
        thread: `NettyClientPublicExecutor_${thread}`,
        location: "o.a.r.c.i.c.ConsumeMessageConcurrentlyService#consumeMessageDirectly:150",
        message: `consumeMessageDirectly receive new message: ${messageExtText(event.message)}`,
      };
    case "consumer_shutdown":
      return { level: "INFO", thread: "SpringContextShutdownHook", location: "o.a.r.c.i.c.DefaultMQPushConsumerImpl#shutdown:297", message: `the consumer [${event.group}] shutdown OK` };
    case "reset_offset":
      return {
        level: "INFO",
        thread: `NettyClientPublicExecutor_${thread}`,
        location: "o.a.r.c.i.ClientRemotingProcessor#resetOffset:153",
        message: `invoke reset offset operation from broker. brokerAddr=${event.brokerAddr}, topic=${event.topic}, group=${event.group}, timestamp=${event.timestamp}`,
      };
  }
}

function uniqKey(properties: readonly (readonly [string, string])[]): string {
  return properties.find(([k]) => k === "UNIQ_KEY")?.[1] ?? "null";
}

/** One entry as its log line, followed by the stack trace lines it carries. */
export function formatClientEntry(entry: ClientEntry, pid: number): string[] {
  const line = lineOf(entry.event, entry.thread);
  const head = `${gmt8(entry.at, "ms")} ${line.level.padEnd(5)} [${pid}] [${line.thread}] [${line.location}] - ${line.message}`;
  return [head, ...(line.trace ?? [])];
}
