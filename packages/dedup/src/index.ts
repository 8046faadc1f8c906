/**
 * @dupscope/dedup: writes the consumer dedup log v1 (docs/dedup-log.md) from a Node.js consumer. No dependencies
 * beyond Node itself; see the package's README.md.
 */
export {
  createDedupLog,
  DedupLogUsageError,
  type Allowed,
  type CheckOptions,
  type DbInsertResult,
  type DbUniqueInsertOptions,
  type DecisionFields,
  type DedupLog,
  type DedupLogOptions,
  type DedupLogRecord,
  type Delivery,
  type DeliveryContext,
  type RedisMarker,
  type RedisMarkerClient,
  type RedisMarkerOptions,
  type RunOptions,
} from "./emitter.ts";
export { defaultInstance, rabbitmqInstance, type AmqpChannelLike } from "./instance.ts";
export {
  BROKERS,
  DEDUP_DECISIONS,
  DEDUP_LAYERS,
  DedupLogError,
  formatDedupLine,
  lineProblems,
  MAX_ERROR_CHARS,
  type Broker,
  type DedupDecision,
  type DedupLayer,
  type DedupLine,
} from "./record.ts";
export type { DedupLogTarget } from "./sink.ts";
export { isUniqueViolation } from "./unique.ts";
