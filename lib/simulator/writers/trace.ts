import { formatTraceRecord } from "../../../collectors/codecs/rocketmq-trace-body.ts";
import type { TraceMessageOut } from "../records.ts";

/** One trace message per NDJSON line, `{bornHost, body, storeTimestamp, msgId}`, its records concatenated. */
export function formatTraceMessage(message: TraceMessageOut): string {
  return JSON.stringify({
    bornHost: message.bornHost,
    body: message.records.map(formatTraceRecord).join(""),
    storeTimestamp: message.storeTimestamp,
    msgId: message.msgId,
  });
}
