import type { Cause, Outcome } from "@/lib/diagnosis/vocabulary.ts";

/**
 * One color per cause and outcome on every chart, so "rebalance" is the same red everywhere. Mid-tone hues that
 * keep their contrast on the light and the dark background alike.
 */
export const CAUSE_COLORS: Record<Cause, string> = {
  rebalance: "#e15759",
  ack_lost: "#4e79a7",
  producer_retry: "#f28e2b",
  upstream_resend: "#b07aa1",
  consume_timeout: "#59a14f",
  invisible_timeout: "#8cd17d",
  commit_failed: "#b6992d",
  offset_rollback: "#d37295",
  shared_client_id: "#499894",
  broadcast_consumption: "#a0cbe8",
  retry_after_failure: "#edc948",
  dlq_replay: "#76b7b2",
  delayed_double_write: "#ff9da7",
  transaction_checkback: "#9c755f",
  unknown: "#8f8a86",
};

export const OUTCOME_COLORS: Record<Outcome, string> = { caught: "#59a14f", leaked: "#e15759", unknown: "#8f8a86" };

export const REBALANCE_LINE = "var(--fg)";
