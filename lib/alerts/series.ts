import type { ConditionKind } from "./conditions.ts";

/**
 * A rule's "group by": the labels whose values split its measurement, each value set an alert of its own (as
 * Prometheus' `sum by (…)` and Alertmanager's `group_by` do), so `leaks > 0 by group` fires once for
 * pay-consumer and once for coupon-consumer, and each resolves on its own.
 */
export const GROUP_BY_LABELS = ["group", "topic", "cause", "defect", "source"] as const;
export type GroupByLabel = (typeof GROUP_BY_LABELS)[number];

/**
 * The labels each condition kind can be split by: what its rows carry. Verdicts have group, topic, cause and
 * defect; rebalances and dedup decisions are events of one group, by topic; silence is per source. A cause_count
 * rule counts one cause, so it cannot be split by cause.
 */
export function groupableBy(kind: ConditionKind): readonly GroupByLabel[] {
  switch (kind) {
    case "leaked_duplicates":
    case "duplicate_rate":
      return ["group", "topic", "cause", "defect"];
    case "cause_count":
      return ["group", "topic", "defect"];
    case "rebalances":
    case "dedup_miss_rate":
      return ["group", "topic"];
    case "ingest_silent":
      return ["source"];
  }
}
