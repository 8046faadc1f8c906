/** Queue identity and RocketMQ's default allocation strategy (AllocateMessageQueueAveragely, "AVG"). */

export interface QueueRef {
  topic: string;
  broker: string;
  queueId: number;
}

/** Unique across topics: the model's map key. */
export function queueKey(q: QueueRef): string {
  return `${q.topic}@${q.broker}:${q.queueId}`;
}

/** The event model's queue name, `brokerName:queueId`. */
export function queueName(q: Pick<QueueRef, "broker" | "queueId">): string {
  return `${q.broker}:${q.queueId}`;
}

/** MessageQueue.compareTo: topic, then broker name, then queue id. */
export function compareQueues(a: QueueRef, b: QueueRef): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  if (a.broker !== b.broker) return a.broker < b.broker ? -1 : 1;
  return a.queueId - b.queueId;
}

/**
 * The queues `cid` gets among `cidAll`, exactly as AllocateMessageQueueAveragely computes them: both lists sorted,
 * the first `mq % cid` consumers take one queue more, each a contiguous run.
 */
export function allocateAveragely(mqAll: readonly QueueRef[], cidAll: readonly string[], cid: string): QueueRef[] {
  const queues = [...mqAll].sort(compareQueues);
  const cids = [...cidAll].sort();
  const index = cids.indexOf(cid);
  if (index < 0 || queues.length === 0) return [];
  const mod = queues.length % cids.length;
  const averageSize = queues.length <= cids.length ? 1 : mod > 0 && index < mod ? Math.floor(queues.length / cids.length) + 1 : Math.floor(queues.length / cids.length);
  const startIndex = mod > 0 && index < mod ? index * averageSize : index * averageSize + mod;
  const range = Math.min(averageSize, queues.length - startIndex);
  const result: QueueRef[] = [];
  for (let i = 0; i < range; i++) result.push(queues[(startIndex + i) % queues.length]!);
  return result;
}
