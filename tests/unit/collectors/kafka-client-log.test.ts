import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { validateEvent } from "../../../lib/events/validate.ts";
import { recordFingerprint } from "../../../collectors/record-fingerprint.ts";
import type { ParseContext, ParseResult } from "../../../collectors/types.ts";
import { parse, parseKafkaClientLine, parsePartitions } from "../../../collectors/kafka-client-log/parse.ts";
import { collectorTestdata } from "../../helpers/golden.ts";

const testdata = collectorTestdata("kafka-client-log");
const ctx: ParseContext = { source: "kafka-client-log:test" };

function parseFixture(fixture: string): ParseResult {
  return parse(testdata.read(fixture), { source: `kafka-client-log:testdata/${fixture}` });
}

const PREFIX = "[Consumer clientId=consumer-points-award-1, groupId=points-award]";
const LOGGER = "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)";
const kafkaLine = (message: string, prefix = PREFIX) => `[2026-11-30 12:00:01,204] INFO ${prefix} ${message} ${LOGGER}`;

function events(line: string, context: ParseContext = ctx) {
  const result = parseKafkaClientLine(line, 1, context);
  assert.equal(result.issue, undefined, result.issue?.reason);
  return result.events;
}

describe("kafka client log fixtures", () => {
  for (const fixture of ["kafka-3.7-log4j.log", "kafka-3.7-consumer-protocol.log", "kafka-2.3-logback.log", "bad-lines.kafka.log"]) {
    it(`parses ${fixture} as the golden file says`, () => {
      testdata.assertGolden(fixture, parseFixture(fixture));
    });
  }

  it("produces only events the ingest API accepts unchanged", () => {
    for (const fixture of ["kafka-3.7-log4j.log", "kafka-3.7-consumer-protocol.log", "kafka-2.3-logback.log"]) {
      for (const event of parseFixture(fixture).events) {
        const checked = validateEvent(event);
        assert.ok(checked.ok, checked.ok ? "" : checked.reason);
        assert.deepEqual(checked.event, event);
      }
    }
  });
});

describe("kafka line layouts", () => {
  const at = Date.UTC(2026, 10, 30, 12, 0, 1, 204);

  it("reads Kafka's own log4j layout [%d] %p %m (%c)", () => {
    const [event] = events(kafkaLine("(Re-)joining group"));
    assert.deepEqual([event!.ts, event!.tsPrecision, event!.detail.action], [at, "ms", "joining"]);
  });

  it("reads the same layout without brackets around the date", () => {
    const [event] = events(`2026-11-30 12:00:01,204 INFO ${PREFIX} (Re-)joining group ${LOGGER}`);
    assert.equal(event!.ts, at);
  });

  it("reads a plain logback yyyy-MM-dd HH:mm:ss.SSS LEVEL layout", () => {
    const line = `2026-11-30 12:00:01.204 INFO  [main] o.a.k.c.c.internals.AbstractCoordinator - ${PREFIX} (Re-)joining group`;
    assert.equal(events(line)[0]!.ts, at);
  });

  it("takes the zone printed by Spring Boot 3 over ctx.utcOffset", () => {
    const line = `2026-11-30T12:00:01.204+08:00  INFO 1 --- [points] [ntainer#0-0-C-1] o.a.k.c.c.internals.ConsumerCoordinator   : ${PREFIX} (Re-)joining group`;
    assert.equal(events(line, { ...ctx, utcOffset: "-05:00" })[0]!.ts, Date.UTC(2026, 10, 30, 4, 0, 1, 204));
  });

  it("finds the date behind a container-log prefix", () => {
    assert.equal(events(`points-1  | ${kafkaLine("(Re-)joining group")}`)[0]!.ts, at);
  });

  it("reads zone-less dates as UTC unless ctx.utcOffset says otherwise", () => {
    assert.equal(events(kafkaLine("(Re-)joining group"), { ...ctx, utcOffset: "+08:00" })[0]!.ts, Date.UTC(2026, 10, 30, 4, 0, 1, 204));
  });

  it("marks a date without milliseconds as second-precise", () => {
    const [event] = events(`[2026-11-30 12:00:01] INFO ${PREFIX} (Re-)joining group`);
    assert.deepEqual([event!.ts, event!.tsPrecision], [Date.UTC(2026, 10, 30, 12, 0, 1), "s"]);
  });
});

describe("kafka rebalance templates", () => {
  it("emits one revoke event per partition, the partition being the last -N of the name", () => {
    const revoked = events(kafkaLine("Revoke previously assigned partitions order-paid-0, order.refund-v2-11"));
    assert.deepEqual(
      revoked.map((e) => [e.kind, e.topic, e.queue, e.detail.action, e.detail.partition, e.detail.template]),
      [
        ["rebalance", "order-paid", "order-paid-0", "revoke", 0, "Revoke previously assigned partitions {}"],
        ["rebalance", "order.refund-v2", "order.refund-v2-11", "revoke", 11, "Revoke previously assigned partitions {}"],
      ],
    );
  });

  it("reads the pre-2.4 Revoking line with a bracketed set", () => {
    const revoked = events(kafkaLine("Revoking previously assigned partitions [order-paid-0, order-paid-1]"));
    assert.deepEqual(revoked.map((e) => [e.queue, e.detail.template]), [
      ["order-paid-0", "Revoking previously assigned partitions {}"],
      ["order-paid-1", "Revoking previously assigned partitions {}"],
    ]);
  });

  it("treats Adding and Setting newly assigned partitions alike, with or without a colon", () => {
    for (const message of [
      "Adding newly assigned partitions: order-paid-2",
      "Setting newly assigned partitions: order-paid-2",
      "Setting newly assigned partitions [order-paid-2]",
    ]) {
      const [event] = events(kafkaLine(message));
      assert.deepEqual([event!.detail.action, event!.queue], ["assign", "order-paid-2"], message);
    }
  });

  it("emits lost partitions as rebalance events", () => {
    const lost = events(kafkaLine("Lost previously assigned partitions order-paid-0"));
    assert.deepEqual(lost.map((e) => [e.kind, e.detail.action, e.queue]), [["rebalance", "lost", "order-paid-0"]]);
  });

  it("reads an empty partition list as one queueless event that says the list was empty", () => {
    for (const message of ["Adding newly assigned partitions: ", "Revoking previously assigned partitions []"]) {
      const [event, ...rest] = events(kafkaLine(message));
      assert.deepEqual(rest, []);
      assert.equal(event!.queue, null);
      assert.deepEqual(event!.detail.partitions, []);
    }
  });

  it("reads the generation object of 2.5+ clients and the bare number of older ones", () => {
    const [current] = events(
      kafkaLine("Successfully joined group with generation Generation{generationId=8, memberId='consumer-points-award-1-5f0c', protocol='range'}"),
    );
    assert.deepEqual(current!.detail, {
      action: "joined",
      template: "Successfully joined group with generation {}",
      clientId: "consumer-points-award-1",
      generationId: 8,
      memberId: "consumer-points-award-1-5f0c",
      protocol: "range",
    });
    const [old] = events(kafkaLine("Successfully joined group with generation 12"));
    assert.equal(old!.detail.generationId, 12);
    assert.equal(old!.detail.memberId, undefined);
  });

  it("emits joining and joined without a queue", () => {
    const [event] = events(kafkaLine("(Re-)joining group"));
    assert.deepEqual([event!.kind, event!.queue, event!.topic], ["rebalance", null, null]);
  });

  it("maps a poll timeout to one poll_timeout event, and the LeaveGroup line that follows to a leave, not a second timeout", () => {
    const text = [
      `[2026-11-30 12:05:20,114] WARN ${PREFIX} consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms. ${LOGGER}`,
      `[2026-11-30 12:05:20,118] INFO ${PREFIX} Member consumer-points-award-1-5f0c sending LeaveGroup request to coordinator kafka-2:9092 (id: 2147483645 rack: null) due to consumer poll timeout has expired. ${LOGGER}`,
      `[2026-11-30 12:05:20,118] WARN ${PREFIX} This member will leave the group because consumer poll timeout has expired. This means … ${LOGGER}`,
    ].join("\n");
    const result = parse(text, ctx);
    assert.deepEqual(
      result.events.map((e) => [e.kind, e.detail.action, e.detail.template]),
      [
        ["instance_lifecycle", "poll_timeout", "consumer poll timeout has expired."],
        ["instance_lifecycle", "leave_group", "Member {} sending LeaveGroup request to coordinator {} due to {}"],
        ["instance_lifecycle", "poll_timeout", "This member will leave the group because consumer poll timeout has expired."],
      ],
    );
    assert.equal(result.skipped, 0);
  });
});

describe("kafka consumer identity", () => {
  it("uses the clientId as instance and the groupId as group on a broker named kafka", () => {
    const [event] = events(kafkaLine("(Re-)joining group"));
    assert.deepEqual([event!.broker, event!.instance, event!.group, event!.detail.clientId], ["kafka", "consumer-points-award-1", "points-award", "consumer-points-award-1"]);
  });

  it("prefers ctx.instance, since default client ids repeat on every host", () => {
    const [event] = events(kafkaLine("(Re-)joining group"), { ...ctx, instance: "10.8.3.17:40112" });
    assert.deepEqual([event!.instance, event!.detail.clientId], ["10.8.3.17", "consumer-points-award-1"]);
  });

  it("keeps the static-membership instanceId in detail", () => {
    const [event] = events(kafkaLine("(Re-)joining group", "[Consumer instanceId=points-0, clientId=consumer-points-award-1, groupId=points-award]"));
    assert.deepEqual([event!.instance, event!.detail.groupInstanceId], ["consumer-points-award-1", "points-0"]);
  });

  it("reads groupId=null as no group", () => {
    const [event] = events(kafkaLine("(Re-)joining group", "[Consumer clientId=consumer-null-1, groupId=null]"));
    assert.equal(event!.group, null);
  });

  it("fingerprints the raw line, and the partition when one line gives several events", () => {
    const line = kafkaLine("Adding newly assigned partitions: order-paid-0, order-paid-1");
    assert.deepEqual(
      events(line).map((e) => e.id),
      [recordFingerprint("kafka-client-log", line, "order-paid-0"), recordFingerprint("kafka-client-log", line, "order-paid-1")],
    );
    const joining = kafkaLine("(Re-)joining group");
    assert.equal(events(joining)[0]!.id, recordFingerprint("kafka-client-log", joining));
  });
});

describe("kafka offset resets", () => {
  const FETCH = "(org.apache.kafka.clients.consumer.internals.Fetcher)";
  const at = (time: string, message: string, prefix = PREFIX) => `[2026-11-30 ${time}] INFO ${prefix} ${message} ${FETCH}`;
  const offsets = (text: string) => parse(text, ctx).events.map((e) => [e.kind, e.queue, e.detail.action, e.detail.fromOffset ?? null, e.detail.toOffset ?? null]);

  it("pairs the out-of-range line of 0.10 – 2.5 with the reset after it, for that partition only", () => {
    const text = [
      at("12:00:01,100", "Fetch offset 202 is out of range for partition topic-demo-0, resetting offset"),
      at("12:00:01,120", "Resetting offset for partition topic-demo-1 to offset 7."),
      at("12:00:01,130", "Resetting offset for partition topic-demo-0 to offset 10."),
    ].join("\n");
    assert.deepEqual(offsets(text), [
      ["instance_lifecycle", "topic-demo-0", "offset_out_of_range", 202, null],
      ["instance_lifecycle", "topic-demo-1", "offset_reset", null, 7],
      ["instance_lifecycle", "topic-demo-0", "offset_reset", 202, 10],
    ]);
  });

  it("does not pair lines of two consumers, nor a line a minute older", () => {
    const other = "[Consumer clientId=consumer-points-award-2, groupId=points-award]";
    const text = [
      at("12:00:01,100", "Fetch offset 500 is out of range for partition t-0, resetting offset", other),
      at("12:00:01,130", "Resetting offset for partition t-0 to offset 10."),
      at("12:00:02,000", "Fetch offset 600 is out of range for partition t-1, resetting offset"),
      at("12:01:30,000", "Resetting offset for partition t-1 to offset 10."),
    ].join("\n");
    assert.deepEqual(
      offsets(text).filter((e) => e[2] !== "offset_out_of_range"),
      [
        ["instance_lifecycle", "t-0", "offset_reset", null, 10],
        ["instance_lifecycle", "t-1", "offset_reset", null, 10],
      ],
    );
  });

  it("reads 0.9's partitionless out-of-range line and its reset that names the strategy, not the offset", () => {
    const text = [
      `[2016-03-02 10:00:00,100] INFO Fetch offset 10000 is out of range, resetting offset ${FETCH}`,
      `[2016-03-02 10:00:00,130] INFO Resetting offset for partition singleconsumertopic-0 to latest offset. ${FETCH}`,
    ].join("\n");
    const events = parse(text, ctx).events;
    assert.deepEqual(
      events.map((e) => [e.queue, e.detail.action, e.detail.fromOffset, e.detail.strategy]),
      [
        [null, "offset_out_of_range", 10000, undefined],
        ["singleconsumertopic-0", "offset_skipped", 10000, "latest"],
      ],
    );
  });

  it("keeps the no-reset-policy line as out of range with policy none, and skips a resume from the committed offset", () => {
    const none = events(
      kafkaLine(
        "Fetch position FetchPosition{offset=3, offsetEpoch=Optional[2], currentLeader=LeaderAndEpoch{leader=Optional[k1:9092 (id: 1 rack: null)], epoch=2}} is out of range for partition orders-0, raising error to the application since no reset policy is configured",
      ),
    );
    assert.deepEqual(none.map((e) => [e.queue, e.detail.action, e.detail.fromOffset, e.detail.policy]), [["orders-0", "offset_out_of_range", 3, "none"]]);
    assert.deepEqual(parseKafkaClientLine(kafkaLine("Resetting offset for partition orders-0 to the committed offset 88"), 1, ctx), { events: [], skipped: true });
  });

  it("says a reset after Found no committed offset came from the group having none (a Debezium history consumer, 2.4)", () => {
    const text = [
      "[2020-11-04 10:29:21,557] INFO [Consumer clientId=dbhistory, groupId=dbhistory] Adding newly assigned partitions: dbhistory_topic-0 (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator:267)",
      "[2020-11-04 10:29:21,558] INFO [Consumer clientId=dbhistory, groupId=dbhistory] Found no committed offset for partition dbhistory_topic-0 (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator:1241)",
      "[2020-11-04 10:29:21,559] INFO [Consumer clientId=dbhistory, groupId=dbhistory] Resetting offset for partition dbhistory_topic-0 to offset 0. (org.apache.kafka.clients.consumer.internals.SubscriptionState:381)",
    ].join("\n");
    const result = parse(text, ctx);
    assert.deepEqual(result.issues, []);
    assert.deepEqual(
      result.events.map((e) => [e.kind, e.queue, e.detail.action, e.detail.reason, e.detail.toOffset]),
      [
        ["rebalance", "dbhistory_topic-0", "assign", undefined, undefined],
        ["instance_lifecycle", "dbhistory_topic-0", "offset_reset", "no_committed_offset", 0],
      ],
    );
  });

  it("reads an application's seek to an offset as a reset there", () => {
    const sought = events(kafkaLine("Seeking to offset 42 for partition orders-3"));
    assert.deepEqual(sought.map((e) => [e.kind, e.queue, e.detail.action, e.detail.reason, e.detail.toOffset]), [["instance_lifecycle", "orders-3", "offset_reset", "seek", 42]]);
  });
});

describe("kafka bad and unrelated input, one line at a time", () => {
  const skipped = [
    ["a broker-side line", "[2026-11-30 12:00:00,512] INFO Kafka version: 3.7.1 (org.apache.kafka.common.utils.AppInfoParser)"],
    ["a producer line", "[2026-11-30 12:00:04,300] INFO [Producer clientId=producer-1] Instantiated an idempotent producer. (org.apache.kafka.clients.producer.KafkaProducer)"],
    ["an unrelated consumer line", kafkaLine("Setting offset for partition order-paid-0 to the committed offset FetchPosition{offset=88412}")],
    ["a stack-trace line", "\tat com.example.points.AwardListener.onMessage(AwardListener.java:58)"],
    ["a ConsumerConfig value line", "\tmax.poll.interval.ms = 300000"],
  ];
  for (const [name, line] of skipped) {
    it(`skips ${name}`, () => {
      assert.deepEqual(parseKafkaClientLine(line!, 1, ctx), { events: [], skipped: true });
    });
  }

  const invalid = [
    ["an impossible date", kafkaLine("(Re-)joining group").replace("2026-11-30", "2026-13-40"), /^timestamp: /],
    ["a rebalance line without a date", `INFO ${PREFIX} (Re-)joining group`, /^timestamp: /],
    ["a partition without a number", kafkaLine("Adding newly assigned partitions: order-paid, order-paid-1"), /^partitions: "order-paid" is not a topic-partition$/],
    ["a truncated generation", kafkaLine("Successfully joined group with generation Generation{generationId=7, memberId='c"), /^generation: /],
  ] as const;
  for (const [name, line, reason] of invalid) {
    it(`reports ${name} as invalid_field without throwing`, () => {
      const result = parseKafkaClientLine(line, 4, ctx);
      assert.deepEqual(result.events, []);
      assert.equal(result.issue?.code, "invalid_field");
      assert.equal(result.issue?.line, 4);
      assert.match(result.issue!.reason, reason);
    });
  }
});

const topicArb = fc
  .array(fc.stringMatching(/^[A-Za-z0-9._]{1,8}$/), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join("-"))
  .chain((topic) => fc.constantFrom(topic, `${topic}-9`));
const partitionsArb = fc.array(fc.record({ topic: topicArb, partition: fc.nat({ max: 100_000 }) }, { noNullPrototype: true }), { minLength: 1, maxLength: 12 });

describe("kafka parser properties", () => {
  it("never throws on arbitrary text", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 400 }), (line) => void parseKafkaClientLine(line, 1, ctx)));
  });

  it("never throws on arbitrary messages and identities behind a consumer prefix", () => {
    const messageArb = fc.oneof(
      fc.string(),
      fc.constantFrom("Adding newly assigned partitions: ", "Revoke previously assigned partitions ", "Successfully joined group with generation ").chain((t) => fc.string().map((s) => t + s)),
    );
    fc.assert(
      fc.property(fc.string(), fc.string(), messageArb, (clientId, groupId, message) => {
        void parseKafkaClientLine(`[2026-11-30 12:00:01,204] INFO [Consumer clientId=${clientId}, groupId=${groupId}] ${message}`, 1, ctx);
      }),
    );
  });

  it("round-trips generated partition lists, bracketed or not, with dashes in topic names", () => {
    fc.assert(
      fc.property(partitionsArb, fc.boolean(), fc.constantFrom("Revoke previously assigned partitions ", "Adding newly assigned partitions: ", "Lost previously assigned partitions "), (partitions, bracketed, template) => {
        const list = partitions.map((p) => `${p.topic}-${p.partition}`).join(", ");
        assert.deepEqual(parsePartitions(bracketed ? `[${list}]` : list), partitions);
        const parsed = events(kafkaLine(template + (bracketed ? `[${list}]` : list)));
        assert.deepEqual(
          parsed.map((e) => [e.topic, e.queue]),
          partitions.map((p) => [p.topic, `${p.topic}-${p.partition}`]),
        );
      }),
    );
  });
});

describe("kafka notations and wrappers (properties)", () => {
  const read = (text: string) => parse(text, { source: "kafka-client-log:test", inputTime: Date.UTC(2026, 10, 30) }).events;

  it("reads Sarama's topic/partition in its ConsumerError, in any wrapper", () => {
    const wrapped = fc.constantFrom(
      (m: string) => m,
      (m: string) => `[watermill] 2026/11/30 10:00:01.000000 subscriber.go:345: \tlevel=ERROR msg="Sarama internal error" err="${m}"`,
      (m: string) => JSON.stringify({ level: "error", msg: "consumer error", error: m }),
    );
    fc.assert(
      // An all-digit word is no topic the extractors trust (it reads as a number).
      fc.property(topicArb.map((t) => `t${t}`), fc.nat({ max: 100_000 }), wrapped, (topic, partition, wrap) => {
        const got = read(wrap(`kafka: error while consuming ${topic}/${partition}: kafka server: The provided member is not known in the current generation.`));
        assert.deepEqual(got.map((e) => [e.detail.action, e.queue]), [["membership_lost", `${topic}-${partition}`]]);
      }),
    );
  });

  it("reads kafka-go's subscribed map and sarama-cluster's claimed map as the assignment", () => {
    // An all-digit word is no topic the extractors trust (it reads as a number).
    const named = fc.array(fc.record({ topic: topicArb.map((t) => `t${t}`), partition: fc.nat({ max: 100_000 }) }, { noNullPrototype: true }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(named, (partitions) => {
        const want = [...new Set(partitions.map((p) => `${p.topic}-${p.partition}`))];
        const kafkaGo = `2026/11/30 10:05:12 subscribed to topics and partitions: map[${partitions.map((p) => `{topic:${p.topic} partition:${p.partition}}:-1`).join(" ")}]`;
        assert.deepEqual(read(kafkaGo).map((e) => e.queue), want);
        const byTopic = new Map<string, number[]>();
        for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
        const claimed = [...byTopic].map(([t, ps]) => `${t}:[${ps.join(" ")}]`).join(" ");
        const cluster = read(`2026/11/30 10:06:02 Rebalanced: &{Type:rebalance OK Claimed:map[${claimed}] Released:map[] Current:map[${claimed}]}`);
        assert.deepEqual(cluster.map((e) => [e.detail.action, e.queue]).sort(), want.map((q) => ["assign", q]).sort());
      }),
    );
    assert.deepEqual(read("2026/11/30 10:06:30 Rebalanced: &{Type:rebalance OK Claimed:map[] Released:map[t:[1]] Current:map[t:[0]]}"), []);
  });

  it("reads franz-go's revoking and added maps as JSON and as Go's fmt prints them under a text logger", () => {
    fc.assert(
      fc.property(topicArb.map((t) => `t${t}`), fc.uniqueArray(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 8 }), (topic, ids) => {
        const want = ids.map((p) => `${topic}-${p}`).sort();
        const json = read(JSON.stringify({ level: "info", msg: "eager consumer revoking prior assigned partitions", group: "g", revoking: { [topic]: ids } }));
        assert.deepEqual(json.map((e) => [e.detail.action, e.queue]).sort(), want.map((q) => ["revoke", q]));
        const text = read(`time=2026-11-30T10:12:44.031Z level=INFO msg="new group session begun" group=g added="map[${topic}:[${ids.join(" ")}]]" lost=map[]`);
        assert.deepEqual(text.map((e) => [e.detail.action, e.queue]).sort(), want.map((q) => ["assign", q]));
      }),
    );
    assert.deepEqual(read('time=2026-11-30T10:12:44.031Z level=INFO msg="new group session begun" group=g added=map[] lost="map[t:[1]]"'), []);
  });

  it("keeps the partitions of a list cut after a separator, and of a bracketed list with a note after it", () => {
    fc.assert(
      fc.property(partitionsArb, (partitions) => {
        const list = partitions.map((p) => `${p.topic}-${p.partition}`).join(", ");
        assert.deepEqual(parsePartitions(`${list},`), partitions);
        const spring = read(`2026-11-30 12:00:19.788 INFO  [C-1] o.s.k.l.KafkaMessageListenerContainer - g: partitions assigned: [${list}] # the note`);
        assert.deepEqual(spring.map((e) => e.queue), partitions.map((p) => `${p.topic}-${p.partition}`));
      }),
    );
  });

  it("reads the fact a JSON record's stack_trace states when its message says nothing", () => {
    const record = (message: string) =>
      JSON.stringify({
        "@timestamp": "2026-11-30T10:00:01.165Z",
        message,
        level: "ERROR",
        stack_trace: "org.apache.kafka.clients.consumer.CommitFailedException: Offset commit cannot be completed since the consumer is not part of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group.\n\tat org.apache.kafka.clients.consumer.internals.ConsumerCoordinator.sendOffsetCommitRequest(ConsumerCoordinator.java:1139)\n",
      });
    fc.assert(
      fc.property(fc.constantFrom("Consumer exception", "poll loop failed", "unexpected error"), (message) => {
        const [e] = read(record(message));
        assert.deepEqual([e?.detail.action, e?.detail.exception], ["commit_failed", "org.apache.kafka.clients.consumer.CommitFailedException"]);
      }),
    );
  });

  it("does not read librdkafka's join state in a state summary as a revocation", () => {
    const term = (state: string) => `%7|1608570443.618|CGRPTERM|rdkafka#consumer-1| [thrd:main]: Group "g": waiting for rebalance_cb, 3 toppar(s), 0 unassignment(s), 0 commit(s), wait-unassign flag, (state up, join-state ${state}) before terminating`;
    fc.assert(fc.property(fc.constantFrom("wait-revoke-rebalance_cb", "wait-unassign-call", "wait-incr-unassign-to-complete"), (state) => assert.deepEqual(read(term(state)), [])));
    assert.deepEqual(read('%7|1538679503.772|ASSIGN|rdkafka#consumer-1| [thrd:main]: Group "g": new assignment of 0 partition(s) in join state wait-revoke-rebalance_cb').map((e) => e.detail.action), ["revoke"]);
  });
});

describe("Spring Kafka container lines", () => {
  it("take the group of the input's consumer lines when they name one group only", () => {
    const lines = (groups: string[]) =>
      [
        ...groups.map((g) => `2026-11-30 12:00:19.741 INFO  [C-1] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=c-${g}, groupId=${g}] Adding newly assigned partitions: order-paid-2`),
        "2026-11-30 12:00:19.788 INFO  [C-1] o.s.k.l.KafkaMessageListenerContainer - partitions assigned: [order-paid-2]",
      ].join("\n");
    const one = parse(lines(["points-award"]), ctx).events.at(-1)!;
    assert.deepEqual([one.group, one.detail.groupFrom], ["points-award", "input"]);
    const two = parse(lines(["points-award", "coupons"]), ctx).events.at(-1)!;
    assert.deepEqual([two.group, two.detail.groupFrom], [null, undefined]);
  });
});

describe("kafka coordinator errors by what they mean", () => {
  const actionsOf = (text: string) => parse(text, { source: "kafka-client-log:test", inputTime: Date.UTC(2026, 10, 30) }).events.map((e) => e.detail.action);

  it("reads a protocol error code under an error-code key, in any wrapper (property)", () => {
    const codes: [number, string][] = [[22, "membership_lost"], [25, "membership_lost"], [82, "membership_lost"], [110, "membership_lost"], [113, "membership_lost"], [27, "joining"], [79, "joining"]];
    const keyed = fc.constantFrom((n: number) => `error_code: ${n}`, (n: number) => `ErrorCode=${n}`, (n: number) => `"error_code":${n}`, (n: number) => `error code ${n}`);
    const wrapped = fc.constantFrom(
      (m: string) => `heartbeat errored; group: g, ${m}`,
      (m: string) => JSON.stringify({ level: "warn", msg: "heartbeat failed", err: m }),
      (m: string) => `consumer-1  | 2026-11-30T10:00:00.000Z WARN heartbeat failed (${m})`,
    );
    fc.assert(
      fc.property(fc.constantFrom(...codes), keyed, wrapped, ([code, action], key, wrap) => {
        assert.deepEqual(actionsOf(wrap(key(code))), [action]);
      }),
    );
  });

  it("reads Errors.java's and Sarama's messages for the member-gone and rebalancing codes", () => {
    const cases: [string, string][] = [
      ["kafka server: The provided generation id is not the current generation.", "membership_lost"],
      ["org.apache.kafka.common.errors.UnknownMemberIdException: The coordinator is not aware of this member.", "membership_lost"],
      ["kafka server: A rebalance for the group is in progress. Please re-join the group.", "joining"],
      ["The group member needs to have a valid member id before actually entering a consumer group.", "joining"],
      ["Group member (g,coor=#PID<0.1077.0>,cb=#PID<0.1073.0>,generation=18): re-joining group, reason::unknown_member_id", "joining"],
      ["JoinGroup failed: The coordinator is not aware of this member. Need to re-join the group.", "joining"],
    ];
    for (const [line, action] of cases) assert.deepEqual(actionsOf(line), [action], line);
  });

  it("does not read a bare number as an error code, nor another code as one of these", () => {
    for (const line of ["fetched 25 records from partition t-25", "error_code: 3", "error_code: 250"]) assert.deepEqual(actionsOf(line), [], line);
  });

  it("reads franz-go's follower join, the bare message `joined` with its fields after it, in any logger", () => {
    const member = "authhistory-8d765814-378e-4bd5-b5d4-162eb8b9a309";
    for (const line of [
      `[INFO] joined; group: g, member_id: ${member}, instance_id: <nil>, generation: 687, leader: false`,
      JSON.stringify({ time: "2026-11-30T10:00:00Z", level: "info", message: "joined", group: "g", member_id: member, instance_id: {}, generation: 687, leader: false }),
    ]) {
      const [e] = parse(line, { source: "kafka-client-log:test", inputTime: Date.UTC(2026, 10, 30) }).events;
      assert.equal(e?.detail.action, "joined", line);
      assert.equal(e?.detail.generationId, 687, line);
      assert.equal(e?.detail.memberId, member, line);
    }
  });

  it("names the member of a 4.x reconciliation block from its Member: line", () => {
    const block = [
      "2026-03-16 16:54:51.475 INFO  [consumer_background_thread] o.a.k.c.c.i.ConsumerMembershipManager - [Consumer clientId=c, groupId=g] Reconciling assignment with local epoch 1",
      "\tMember:                                    tKQVSQuHR9aBocp13XT9nw",
      "\tAssigned partitions:                       [t-0]",
      "\tCurrent owned partitions:                  [t-0, t-1]",
      "\tAdded partitions (assigned - owned):       []",
      "\tRevoked partitions (owned - assigned):     [t-1]",
    ].join("\n");
    const moved = parse(block, { source: "kafka-client-log:test" }).events;
    assert.deepEqual(moved.map((e) => [e.detail.action, e.queue, e.detail.memberId]), [["revoke", "t-1", "tKQVSQuHR9aBocp13XT9nw"]]);
  });

  it("reads Kafka Streams' thread and client state transitions, and a fenced thread", () => {
    const streams = (thread: string, message: string) => `2026-11-30 10:00:01,112 INFO  [app-StreamThread-1] o.a.k.s.p.i.StreamThread - ${thread} ${message}`;
    const cases: [string, string[]][] = [
      [streams("stream-thread [app-StreamThread-1]", "State transition from RUNNING to PARTITIONS_REVOKED"), ["revoke"]],
      [streams("stream-thread [app-StreamThread-1]", "State transition from PARTITIONS_REVOKED to PARTITIONS_ASSIGNED"), ["assign"]],
      [streams("stream-client [app-1]", "State transition from RUNNING to REBALANCING"), ["joining"]],
      [streams("stream-client [app-1]", "State transition from REBALANCING to RUNNING"), []],
      [streams("stream-thread [app-StreamThread-1]", "Detected that the thread is being fenced. This implies that this thread missed a rebalance and dropped out of the consumer group. Will close out all assigned tasks and rejoin the consumer group."), ["membership_lost"]],
    ];
    for (const [line, actions] of cases) assert.deepEqual(actionsOf(line), actions, line);
  });

  it("takes the group of a record whose first line said nothing from that line, when its exception states the fact", () => {
    const record = [
      "2026-11-30 12:00:01,204 ERROR [pool-1-thread-1] c.e.Worker - [Consumer clientId=c-1, groupId=orders] poll loop failed",
      "org.apache.kafka.common.errors.UnknownMemberIdException: The coordinator is not aware of this member.",
      "\tat org.apache.kafka.clients.consumer.internals.AbstractCoordinator.handle(AbstractCoordinator.java:1)",
    ].join("\n");
    const [e] = parse(record, { source: "kafka-client-log:test" }).events;
    assert.deepEqual([e?.detail.action, e?.group, e?.detail.clientId], ["membership_lost", "orders", "c-1"]);
  });

  it("names the exception a wrapper's message quotes, whatever template read the line", () => {
    const line =
      "[20/06/20 04:18:27:216 BST] 0000003e com.ibm.ws.microprofile.reactive.messaging.kafka.KafkaInput  W CWMRX1001W: An error occurred when committing read offsets to the Kafka broker. " +
      "The error is: org.apache.kafka.clients.consumer.CommitFailedException: Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member.";
    const [e] = parse(line, { source: "kafka-client-log:test", inputTime: Date.UTC(2026, 10, 30) }).events;
    assert.deepEqual([e?.detail.action, e?.detail.exception], ["commit_failed", "org.apache.kafka.clients.consumer.CommitFailedException"]);
  });

  it("reads franz-go's session begun with what it added, and confluent-kafka-go's Assigned/RevokedPartitions events", () => {
    const queues = (line: string) => parse(line, { source: "kafka-client-log:test", inputTime: Date.UTC(2026, 10, 30) }).events.map((e) => `${e.detail.action} ${e.queue}`);
    assert.deepEqual(queues(JSON.stringify({ added: { orders: [0, 3] }, group: "g", level: "info", lost: {}, msg: "new group session begun" })), ["assign orders-0", "assign orders-3"]);
    assert.deepEqual(queues(JSON.stringify({ added: {}, group: "g", level: "info", lost: {}, msg: "new group session begun" })), [], "a session that added nothing");
    assert.deepEqual(queues("% AssignedPartitions: [orders[0]@unset orders[1]@unset]"), ["assign orders-0", "assign orders-1"]);
    assert.deepEqual(queues("% RevokedPartitions: [orders[0]@unset]"), ["revoke orders-0"]);
  });

  it("reads a reset whose partition a paste elided, without a partition", () => {
    const [e] = parse(kafkaLine("Resetting offset for partition [...] to offset 1638380.", "[Consumer clientId=c-0, groupId=connect-sink]"), { source: "kafka-client-log:test" }).events;
    assert.equal(e?.detail.action, "offset_reset");
    assert.equal(e?.queue, null);
  });
});
