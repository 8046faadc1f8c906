// Assembles the fixture bodies from field lists written per docs/formats.md §1. It does not use
// parse.ts on purpose: the fixtures must pin the wire format, not whatever the parser's own formatter writes.
// Run: node collectors/rocketmq-trace/testdata/make-fixtures.mjs   (then regenerate the goldens, see README.md)
import { writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
const S = "\u0001", F = "\u0002";
const rec = (...fields) => fields.join(S) + F;
const T = 1796011200000; // 2026-11-30 12:00:00.000 +08:00
const t = (ms) => String(T + ms);
const line = (o) => JSON.stringify(o);

// Message ids (UNIQ_KEY: producer ip, pid, classloader hash, time, counter) and offsetMsgIds (store ip:port + commit-log offset).
const M1 = "0A000005216C18B4AAC27A9E2A3F0001"; // ORD-...0001, two business keys
const M2 = "0A000005216C18B4AAC27A9E2B100002"; // producer retry: two stored copies
const M3 = "0A000005216C18B4AAC27A9E2B8C0003";
const M4 = "0A000005216C18B4AAC27A9E2B8C0004";
const M5 = "0A000005216C18B4AAC27A9E2C010005"; // consume timeout, then retry
const M6 = "0A00032A1D4E18B4AAC27A9E2C7A0006"; // V1 client, no keys
const M7 = "0A00032A1D4E18B4AAC27A9E2C7A0007"; // older client, success at [12]
const M8 = "0A00021F228A00000000000000000008"; // Go client
const M9 = "0A000220599B18B4AAC27A9E2D110009"; // republished to the retry topic
const M10 = "0A000005216C18B4AAC27A9E2E20000A"; // transactional
const M11 = "0A000433073D18B4AAC27A9E2F02000B"; // cloud channel consumer
const M12 = "0A00032A1D4E18B4AAC27A9E2F95000C"; // timer message recalled
const BA = "10.0.0.11:10911", BB = "10.0.0.12:10911";
const off = (host, offset) => (host === BA ? "0A00000B00002A9F" : "0A00000C00002A9F") + offset.toString(16).toUpperCase().padStart(16, "0");
const PG = "order-producer-group", CG = "order-consumer-group", TOPIC = "ORDER_PAID", R = "DefaultRegion";

const good = [
  // Java 4.9+ Pub (14 fields), two business keys.
  line({ bornHost: "10.0.0.5:53211", storeTimestamp: T + 5012, msgId: "0A000005216C18B4AAC27A9F00000101",
    body: rec("Pub", t(0), R, PG, TOPIC, M1, "paid", "ORD-20261130-0001 PAY-7781", BA, 412, 4, 0, off(BA, 0x3e8a0), "true") }),
  // Producer retry: the first attempt came back FLUSH_SLAVE_TIMEOUT (success=false), the resend went to broker-b. Same msgId, two offsetMsgIds.
  line({ bornHost: "10.0.0.5:53211", storeTimestamp: T + 10020,
    body: rec("Pub", t(1200), R, PG, TOPIC, M2, "paid", "ORD-20261130-0002", BA, 398, 2950, 0, off(BA, 0x3eb10), "false")
        + rec("Pub", t(4152), R, PG, TOPIC, M2, "paid", "ORD-20261130-0002", BB, 398, 6, 0, off(BB, 0x1f7c40), "true") }),
  // Java 4.9+ Pub of M3 and M4 batched in one trace message.
  line({ bornHost: "10.0.0.5:53211", storeTimestamp: T + 10031,
    body: rec("Pub", t(4300), R, PG, TOPIC, M3, "paid", "ORD-20261130-0003", BA, 405, 3, 0, off(BA, 0x3ed80), "true")
        + rec("Pub", t(4310), R, PG, TOPIC, M4, "paid", "ORD-20261130-0004", BB, 401, 3, 0, off(BB, 0x1f7eb0), "true")
        + rec("Pub", t(4400), R, PG, TOPIC, M5, "paid", "ORD-20261130-0005", BA, 420, 4, 0, off(BA, 0x3eff0), "true") }),
  // V1 client (12 fields: no offsetMsgId, no success); tags and keys "null".
  line({ bornHost: "10.0.3.42:41877", storeTimestamp: T + 9000,
    body: rec("Pub", t(5000), R, "legacy-producer-group", TOPIC, M6, "null", "null", BA, 230, 7, 0) }),
  // Older client (13 fields: success at [12], no offsetMsgId); a delay message.
  line({ bornHost: "10.0.3.42:41877", storeTimestamp: T + 9004,
    body: rec("Pub", t(5100), R, "legacy-producer-group", TOPIC, M7, "paid", "ORD-20261130-0007", BB, 233, 5, 3, "true") }),
  // Go client (15 fields, clientHost = clientId ip@pid).
  line({ bornHost: "10.0.2.31:60402", storeTimestamp: T + 10500,
    body: rec("Pub", t(5500), R, "refund-producer-group", TOPIC, M8, "refund", "RF-88120", BB, 188, 2, 0, off(BB, 0x1f8120), "true", "10.0.2.31@8842") }),
  // Java 4.8.0 (15 fields) republishing into the retry topic: the topic is kept as written.
  line({ bornHost: "10.0.2.32:38810", storeTimestamp: T + 11020,
    body: rec("Pub", t(6000), R, "ops-replay-group", "%RETRY%order-consumer-group", M9, "paid", "ORD-20261130-0009", BA, 415, 9, 0, off(BA, 0x3f260), "true", "10.0.2.32@23011#1796011190123456789") }),
  // Batch consume on instance A: one requestId shared by three SubBefore records (Java 4.9+, 8 fields).
  line({ bornHost: "10.0.1.21:40125", storeTimestamp: T + 11400,
    body: rec("SubBefore", t(6010), R, CG, "0A0001155C3A18B4AAC27A9E30000001", M1, 0, "ORD-20261130-0001 PAY-7781")
        + rec("SubBefore", t(6010), R, CG, "0A0001155C3A18B4AAC27A9E30000001", M3, 0, "ORD-20261130-0003")
        + rec("SubBefore", t(6010), R, CG, "0A0001155C3A18B4AAC27A9E30000001", M4, 0, "ORD-20261130-0004") }),
  // ...and its SubAfter records (9 fields): costTime is the batch total divided by the batch size.
  line({ bornHost: "10.0.1.21:40125", storeTimestamp: T + 16410,
    body: rec("SubAfter", "0A0001155C3A18B4AAC27A9E30000001", M1, 41, "true", "ORD-20261130-0001 PAY-7781", 0, t(6135), CG)
        + rec("SubAfter", "0A0001155C3A18B4AAC27A9E30000001", M3, 41, "true", "ORD-20261130-0003", 0, t(6135), CG)
        + rec("SubAfter", "0A0001155C3A18B4AAC27A9E30000001", M4, 41, "true", "ORD-20261130-0004", 0, t(6135), CG) }),
  // Both stored copies of the producer retry consumed, each with retryTimes 0, on two instances.
  line({ bornHost: "10.0.1.21:40125", storeTimestamp: T + 6300,
    body: rec("SubBefore", t(1260), R, CG, "0A0001155C3A18B4AAC27A9E30000002", M2, 0, "ORD-20261130-0002")
        + rec("SubAfter", "0A0001155C3A18B4AAC27A9E30000002", M2, 35, "true", "ORD-20261130-0002", 0, t(1295), CG) }),
  line({ bornHost: "10.0.1.22:51730", storeTimestamp: T + 16433,
    body: rec("SubBefore", t(4188), R, CG, "0A0001165D1B18B4AAC27A9E31000001", M2, 0, "ORD-20261130-0002")
        + rec("SubAfter", "0A0001165D1B18B4AAC27A9E31000001", M2, 38, "true", "ORD-20261130-0002", 0, t(4226), CG) }),
  // Consume timeout on instance B: SubAfter contextCode 1 (TIME_OUT) after 15 min...
  line({ bornHost: "10.0.1.22:51730", storeTimestamp: T + 9600,
    body: rec("SubBefore", t(4410), R, CG, "0A0001165D1B18B4AAC27A9E31000002", M5, 0, "ORD-20261130-0005") }),
  line({ bornHost: "10.0.1.22:51730", storeTimestamp: T + 905100,
    body: rec("SubAfter", "0A0001165D1B18B4AAC27A9E31000002", M5, 900230, "false", "ORD-20261130-0005", 1, t(904640), CG) }),
  // ...then the retry copy (retryTimes 1) about 10 s after it was sent back, on instance A; before and after in one body.
  line({ bornHost: "10.0.1.21:40125", storeTimestamp: T + 920050,
    body: rec("SubBefore", t(914700), R, CG, "0A0001155C3A18B4AAC27A9E30000003", M5, 1, "ORD-20261130-0005")
        + rec("SubAfter", "0A0001155C3A18B4AAC27A9E30000003", M5, 52, "true", "ORD-20261130-0005", 0, t(914752), CG) }),
  // Go client consumer: SubBefore with clientHost (9 fields) and SubAfter (9 fields).
  line({ bornHost: "10.0.2.31:60418", storeTimestamp: T + 15050,
    body: rec("SubBefore", t(5560), R, "refund-consumer-group", "0A00021F228A0000000000000000A001", M8, 0, "RF-88120", "10.0.2.31@8842")
        + rec("SubAfter", "0A00021F228A0000000000000000A001", M8, 12, "true", "RF-88120", 0, t(5572), "refund-consumer-group") }),
  // Cloud access channel: SubAfter has 7 fields (no end time, no group; the encoder leaves a trailing separator).
  line({ bornHost: "10.0.4.51:47001", storeTimestamp: T + 21003,
    body: rec("SubBefore", t(16000), "cn-hangzhou", "GID_order_cloud", "0A000433073D18B4AAC27A9E32000001", M11, 0, "ORD-20261130-0011")
        + rec("SubAfter", "0A000433073D18B4AAC27A9E32000001", M11, 87, "true", "ORD-20261130-0011", 0, "") }),
  // Old client: SubAfter with 6 fields (no contextCode), keys "null"; its end time falls back to storeTimestamp.
  line({ bornHost: "10.0.3.41:39102", storeTimestamp: T + 14008,
    body: rec("SubBefore", t(9010), R, "legacy-consumer-group", "0A00032918B418B4AAC27A9E33000001", M6, 0, "null")
        + rec("SubAfter", "0A00032918B418B4AAC27A9E33000001", M6, 15, "true", "null") }),
  // Transactional message: half message, an UNKNOW end, then the broker's check-back commits it.
  line({ bornHost: "10.0.0.5:53211", storeTimestamp: T + 25010,
    body: rec("Pub", t(20000), R, "tx-producer-group", "ORDER_CREATED", M10, "created", "ORD-20261130-0010", BA, 512, 5, 1, off(BA, 0x3f4d0), "true")
        + rec("EndTransaction", t(20006), R, "tx-producer-group", "ORDER_CREATED", M10, "created", "ORD-20261130-0010", BA, 2, "0A000005216C18B4AAC27A9E2E20000A", "UNKNOW", "false") }),
  line({ bornHost: "10.0.0.5:53211", storeTimestamp: T + 85020,
    body: rec("EndTransaction", t(80015), R, "tx-producer-group", "ORDER_CREATED", M10, "created", "ORD-20261130-0010", BA, 2, "0A000005216C18B4AAC27A9E2E20000A", "COMMIT_MESSAGE", "true") }),
  // 5.3.2+ Recall of a timer message (7 fields).
  line({ bornHost: "10.0.3.42:41877", storeTimestamp: T + 35002,
    body: rec("Recall", t(30000), R, "legacy-producer-group", "ORDER_TIMER", M12, "true") }),
];

const partlyBad = [
  // A good line among bad ones.
  line({ bornHost: "10.0.0.5:53211", storeTimestamp: T + 5012,
    body: rec("Pub", t(0), R, PG, TOPIC, M1, "paid", "ORD-20261130-0001", BA, 412, 4, 0, off(BA, 0x3e8a0), "true") }),
  // Second record has 4 fields: the other two still give events.
  line({ bornHost: "10.0.1.21:40125", storeTimestamp: T + 11400,
    body: rec("SubBefore", t(6010), R, CG, "0A0001155C3A18B4AAC27A9E30000001", M1, 0, "ORD-20261130-0001")
        + rec("SubAfter", "0A0001155C3A18B4AAC27A9E30000001", M1, 41)
        + rec("SubBefore", t(6010), R, CG, "0A0001155C3A18B4AAC27A9E30000001", M3, 0, "ORD-20261130-0003") }),
  // Not JSON (a log line pasted into the export).
  "2026-11-30 12:00:05.120 INFO  [TraceConsumer] pulled 3 trace messages",
  // No bornHost: the consumer identity is lost, so the line is refused.
  line({ body: rec("SubBefore", t(6010), R, CG, "0A0001155C3A18B4AAC27A9E30000001", M4, 0, "ORD-20261130-0004") }),
  // Timestamp in seconds, and a non-numeric costTime.
  line({ bornHost: "10.0.0.5:53211", body: rec("Pub", String(Math.floor(T / 1000)), R, PG, TOPIC, M3, "paid", "ORD-20261130-0003", BA, 405, "3ms", 0, off(BA, 0x3ed80), "true") }),
  // Body cut off in the middle of the second record.
  line({ bornHost: "10.0.1.22:51730", storeTimestamp: T + 16433,
    body: rec("SubBefore", t(4188), R, CG, "0A0001165D1B18B4AAC27A9E31000001", M2, 0, "ORD-20261130-0002")
        + ["SubAfter", "0A0001165D1B18B4AAC27A9E31000001", M2, 38, "tr"].join(S) }),
  // Cloud-channel SubAfter without an end time, in a message exported without storeTimestamp.
  line({ bornHost: "10.0.4.51:47001",
    body: rec("SubAfter", "0A000433073D18B4AAC27A9E32000001", M11, 87, "true", "ORD-20261130-0011", 0, "") }),
  // A record type no client writes.
  line({ bornHost: "10.0.4.51:47001", storeTimestamp: T + 21003, body: rec("SubMiddle", t(16000), R, CG) }),
  // A JSON value that is not a trace message.
  line(["10.0.4.51:47001", "SubBefore"]),
];

const dir = dirname(fileURLToPath(import.meta.url));
writeFileSync(`${dir}/trace-messages.ndjson`, good.join("\n") + "\n");
writeFileSync(`${dir}/partly-bad.ndjson`, partlyBad.join("\n") + "\n");
