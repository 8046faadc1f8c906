// Writes tests/fixtures/rebalance-story/trace.ndjson from the record layouts (formatTraceRecord); the log files
// beside it are hand-written. Run: npx tsx tests/helpers/rebalance-story-fixtures.ts
import { writeFileSync } from "node:fs";
import path from "node:path";
import { formatTraceRecord } from "../../collectors/codecs/rocketmq-trace-body.ts";

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const KEY = "ORDER-RB-20261130-0001";
const MSG = "0A0000090F1218B4AAC2841F3D9C0000";
const common = { regionId: "DefaultRegion", keys: [KEY] };

const messages = [
  {
    bornHost: "10.0.0.9:45122",
    body: formatTraceRecord({
      type: "Pub", timeStamp: T0, producerGroup: "pay-producer", topic: "PAY_SUCCESS", msgId: MSG, tags: "paid", storeHost: "10.0.0.2:10911",
      bodyLength: 734, costTime: 3, msgType: 0, offsetMsgId: "0A00000200002A9F0000000000A1C2D4", success: true, ...common,
    }),
    storeTimestamp: T0 + 4100,
  },
  {
    bornHost: "10.0.0.5:53211",
    body:
      formatTraceRecord({ type: "SubBefore", timeStamp: T0 + 450, consumerGroup: "pay-consumer", requestId: "0A000005109A18B4AAC2841F3DA10001", msgId: MSG, retryTimes: 0, ...common }) +
      formatTraceRecord({ type: "SubAfter", requestId: "0A000005109A18B4AAC2841F3DA10001", msgId: MSG, costTime: 80, success: true, keys: [KEY], contextCode: 0, timeStamp: T0 + 530, consumerGroup: "pay-consumer" }),
    storeTimestamp: T0 + 5120,
  },
  {
    bornHost: "10.0.0.7:40007",
    body:
      formatTraceRecord({ type: "SubBefore", timeStamp: T0 + 1690, consumerGroup: "pay-consumer", requestId: "0A000007005818B4AAC2841F3DB20001", msgId: MSG, retryTimes: 0, ...common }) +
      formatTraceRecord({ type: "SubAfter", requestId: "0A000007005818B4AAC2841F3DB20001", msgId: MSG, costTime: 12, success: true, keys: [KEY], contextCode: 0, timeStamp: T0 + 1702, consumerGroup: "pay-consumer" }),
    storeTimestamp: T0 + 6330,
  },
];

writeFileSync(path.join(import.meta.dirname, "..", "fixtures", "rebalance-story", "trace.ndjson"), messages.map((m) => JSON.stringify(m)).join("\n") + "\n");
