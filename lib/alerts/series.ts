/**
 * A rule's "group by": the labels whose values split its measurement, each value set an alert of its own (as
 * Prometheus' `sum by (…)` and Alertmanager's `group_by` do), so `leaks > 0 by group` fires once for
 * pay-consumer and once for coupon-consumer, and each resolves on its own.
 */
export const GROUP_BY_LABELS = ["group", "topic", "cause", "defect", "source"] as const;
export type GroupByLabel = (typeof GROUP_BY_LABELS)[number];
