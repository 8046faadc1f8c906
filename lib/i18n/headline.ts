import type { EvidenceCode } from "../diagnosis/evidence.ts";
import type { Cause, DedupLayer, Defect, Outcome } from "../diagnosis/vocabulary.ts";
import { causeName, defectName, outcomeName, type TextEvidence } from "./diagnosis-text.ts";
import { dictionary } from "./dictionary.ts";
import type { Locale } from "./locale.ts";

/**
 * The verdict in one sentence, for the top of the key page: "Duplicate caused by a **rebalance**: queue … moved
 * from A to B …; caught by the **DB unique key**". The cause and outcome words and the evidence sentence come
 * from lib/i18n/diagnosis-text.ts; this only picks the evidence that shows the cause best and joins the parts.
 * Segments, not markup, so the page decides how to emphasise.
 */

export interface Segment {
  text: string;
  strong?: boolean;
}

/** The evidence that says most about each cause, best first; otherwise the first evidence for the cause. */
const TELLING: Partial<Record<Cause, EvidenceCode[]>> = {
  rebalance: ["queue_moved", "queue_taken_over", "queue_dropped_mid_consume", "retry_chains_forked", "same_record_other_instance"],
  ack_lost: ["channel_lost", "process_restarted", "owner_went_silent", "partition_lost"],
  producer_retry: ["stored_copies", "send_failed_then_retried", "producer_resend_logged", "kafka_send_retried", "copy_without_send", "too_soon_for_redelivery"],
  upstream_resend: ["published_twice", "different_msg_ids"],
  consume_timeout: ["consume_timed_out"],
  commit_failed: ["offset_commit_failed", "poll_interval_exceeded"],
  offset_rollback: ["offset_reset"],
  shared_client_id: ["client_id_shared"],
  broadcast_consumption: ["broadcasting_group"],
  invisible_timeout: ["receipt_handle_expired", "redelivered_while_processing", "redelivered_without_failure"],
  retry_after_failure: ["effect_before_failure", "consume_failed"],
  dlq_replay: ["consumed_directly", "retries_exhausted", "dlq_topic"],
  delayed_double_write: ["delay_message", "stored_copies"],
  transaction_checkback: ["tx_checkback", "tx_commit"],
};

export interface HeadlineVerdict {
  cause: Cause;
  outcome: Outcome;
  layer?: DedupLayer;
  defect?: Defect;
  evidence: readonly TextEvidence[];
}

export function tellingEvidence(v: HeadlineVerdict): TextEvidence | undefined {
  const causes = v.evidence.filter((e) => e.role === "cause");
  for (const code of TELLING[v.cause] ?? []) {
    const found = causes.find((e) => e.code === code);
    if (found) return found;
  }
  // That the clocks were overruled says how the deliveries were ordered, not why the message came twice.
  return causes.find((e) => e.code !== "reordered") ?? causes[0];
}

export function verdictHeadline(v: HeadlineVerdict, locale: Locale): Segment[] {
  const t = dictionary(locale).key;
  const zh = locale === "zh-CN";
  // Chinese runs words together; English needs the space.
  const space = zh ? "" : " ";
  const because = tellingEvidence(v);
  const segments: Segment[] = [{ text: `${t.headlineCause}${space}` }, { text: causeName(v.cause, locale), strong: true }];
  if (because) segments.push({ text: `${zh ? "：" : ": "}${because.text}` });
  segments.push({ text: zh ? "；" : "; " });
  if (v.outcome === "caught" && v.layer) {
    segments.push({ text: `${t.caughtBy}${space}` }, { text: dictionary(locale).layers[v.layer], strong: true });
  } else if (v.outcome === "caught") {
    // Caught with no layer named: the business table showed a single effect (dupscope probe), no dedup line said hit.
    segments.push({ text: outcomeName("caught", locale), strong: true });
  } else if (v.outcome === "leaked") {
    segments.push({ text: t.leaked, strong: true }, { text: `${zh ? "：" : ": "}${t.leakedTail}${v.defect ? (zh ? `（${defectName(v.defect, locale)}）` : ` (${defectName(v.defect, locale)})`) : ""}` });
  } else {
    segments.push({ text: t.unknownOutcome });
  }
  segments.push({ text: zh ? "。" : "." });
  return segments;
}
