import type { RE2JS } from "re2js";
import type { Fact } from "../../lib/events/facts.ts";
import type { Broker } from "../../lib/events/model.ts";

/** A pattern of the user's patterns file, checked and compiled (./user-patterns.ts). */

/** The named groups a pattern may capture, and where each goes. */
export const FIELDS = [
  "group",
  "topic",
  "queue",
  "partition",
  "instance",
  "msgId",
  "bizKey",
  "clientId",
  "memberId",
  "generation",
  "reason",
  "exception",
  "channel",
  "timeoutMs",
  "connection",
  "consumerTag",
  "vhost",
] as const;
export type Field = (typeof FIELDS)[number];

export const LOG_FORMATS = ["rocketmq-client-log", "rocketmq-broker-log", "kafka-client-log", "rabbitmq-server-log", "rabbitmq-client-log"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface UserPattern {
  name: string;
  formats: readonly LogFormat[] | null;
  fact: Fact;
  broker: Broker | null;
  regex: RE2JS;
  groups: readonly Field[];
  constants: Partial<Record<Field, string | number>>;
}

