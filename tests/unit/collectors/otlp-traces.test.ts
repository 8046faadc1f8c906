import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import fc from "fast-check";
import { decodeJson, decodeProtobuf } from "../../../collectors/otlp-traces/decode.ts";
import { openOtlpTraces } from "../../../collectors/otlp-traces/parse.ts";
import { OtlpDecodeError } from "../../../collectors/otlp-traces/spans.ts";
import { parseLines } from "../../../collectors/types.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { contextOf } from "../../../lib/diagnosis/scope.ts";
import { compileDescriptor, DESCRIPTOR } from "../../../scripts/otlp-descriptor.ts";
import { collectorTestdata } from "../../helpers/golden.ts";
import { jsonBody, linkTo, protobufBody, SpanRecorder } from "../../helpers/otel.ts";

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);

function kafkaSpans() {
  const producer = new SpanRecorder({ "service.name": "order-api", "host.name": "api-1", "process.pid": 4121 });
  const send = producer.span({
    name: "orders publish",
    kind: SpanKind.PRODUCER,
    start: T0,
    end: T0 + 3,
    attributes: { "messaging.system": "kafka", "messaging.destination.name": "orders", "messaging.kafka.message.key": "ORDER-1", "messaging.kafka.destination.partition": 2, "messaging.kafka.message.offset": 881 },
  });
  const consumer = new SpanRecorder({ "service.name": "billing", "service.instance.id": "billing-7f9c", "k8s.pod.name": "billing-7f9c" });
  consumer.span({
    name: "orders process",
    kind: SpanKind.CONSUMER,
    start: T0 + 20,
    end: T0 + 95,
    attributes: { "messaging.system": "kafka", "messaging.operation": "process", "messaging.kafka.consumer.group": "billing", "messaging.kafka.message.offset": 881, "messaging.batch.message_count": 1 },
    status: { code: SpanStatusCode.ERROR, message: "boom" },
    links: [linkTo(send)],
    parent: send,
  });
  return [...producer.spans(), ...consumer.spans()];
}

describe("OTLP trace requests", () => {
  it("decode the same from the SDK's protobuf and JSON encodings", () => {
    const spans = kafkaSpans();
    const fromProtobuf = decodeProtobuf(protobufBody(spans));
    const fromJson = decodeJson(jsonBody(spans));
    assert.deepEqual(fromProtobuf, fromJson);
    assert.equal(fromProtobuf.rejected.length, 0);
    const [send, process] = fromProtobuf.spans;
    assert.equal(send!.kind, "producer");
    assert.equal(send!.startMs, T0);
    assert.equal(send!.attributes["messaging.kafka.message.offset"], 881);
    assert.equal(send!.resource["process.pid"], 4121);
    assert.equal(process!.kind, "consumer");
    assert.deepEqual(process!.status, { code: "error", message: "boom" });
    assert.equal(process!.parentSpanId, send!.spanId);
    assert.equal(process!.traceId, send!.traceId);
    assert.deepEqual(process!.links.map((l) => l.spanId), [send!.spanId]);
    assert.equal(process!.endMs - process!.startMs, 75);
    assert.match(process!.traceId, /^[0-9a-f]{32}$/);
    assert.equal(process!.scope.name, "dupscope-tests");
  });

  it("read JSON as receivers must: snake_case names, enum names, 64-bit integers as text, unknown fields ignored", () => {
    const decoded = decodeJson(
      JSON.stringify({
        resource_spans: [
          {
            resource: { attributes: [{ key: "service.name", value: { string_value: "billing" } }], dropped_attributes_count: 0 },
            scope_spans: [
              {
                scope: { name: "io.opentelemetry.kafka-clients-0.11", version: "2.10.0-alpha" },
                spans: [
                  {
                    trace_id: "5B8EFFF798038103D269B633813FC60C",
                    span_id: "EEE19B7EC3C1B174",
                    name: "orders process",
                    kind: "SPAN_KIND_CONSUMER",
                    start_time_unix_nano: "1764489600000000000",
                    end_time_unix_nano: 1764489600050000000,
                    attributes: [
                      { key: "messaging.kafka.message.offset", value: { int_value: "881" } },
                      { key: "messaging.rocketmq.message.keys", value: { array_value: { values: [{ string_value: "ORDER-1" }, { string_value: "ORDER-2" }] } } },
                    ],
                    status: { code: 2, message: "boom" },
                    flags: 257,
                    some_future_field: { x: 1 },
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    assert.equal(decoded.rejected.length, 0);
    const [span] = decoded.spans;
    assert.equal(span!.traceId, "5b8efff798038103d269b633813fc60c");
    assert.equal(span!.kind, "consumer");
    assert.equal(span!.startMs, Date.UTC(2025, 10, 30, 8, 0, 0));
    assert.equal(span!.endMs - span!.startMs, 50);
    assert.equal(span!.attributes["messaging.kafka.message.offset"], 881);
    assert.deepEqual(span!.attributes["messaging.rocketmq.message.keys"], ["ORDER-1", "ORDER-2"]);
    assert.equal(span!.status.code, "error");
  });

  it("reject a span it cannot identify or place in time, and keep the others", () => {
    const ok = { traceId: "5b8efff798038103d269b633813fc60c", spanId: "eee19b7ec3c1b174", name: "s", startTimeUnixNano: "1764489600000000000" };
    const decoded = decodeJson(
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  ok,
                  { ...ok, traceId: "00000000000000000000000000000000" },
                  { ...ok, spanId: "xyz" },
                  { ...ok, startTimeUnixNano: "0" },
                  "not a span",
                ],
              },
            ],
          },
        ],
      }),
    );
    assert.equal(decoded.spans.length, 1);
    assert.deepEqual(
      decoded.rejected.map((r) => r.index),
      [1, 2, 3, 4],
    );
    assert.match(decoded.rejected[0]!.reason, /traceId/);
    assert.match(decoded.rejected[2]!.reason, /startTimeUnixNano/);
  });

  it("refuse a body that is not a request, whole", () => {
    assert.throws(() => decodeJson("{"), OtlpDecodeError);
    assert.throws(() => decodeJson("[]"), OtlpDecodeError);
    assert.throws(() => decodeJson('{"resourceSpans": {"a": 1}}'), OtlpDecodeError);
    assert.throws(() => decodeProtobuf(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])), OtlpDecodeError);
  });

  it("never fail on arbitrary bytes or JSON with anything but OtlpDecodeError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        try {
          decodeProtobuf(bytes);
        } catch (error) {
          assert.ok(error instanceof OtlpDecodeError, String(error));
        }
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        try {
          decodeJson(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [value] }] }] }));
          decodeJson(JSON.stringify(value));
        } catch (error) {
          assert.ok(error instanceof OtlpDecodeError, String(error));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("use the descriptor compiled from the vendored .proto files (npm run otlp:descriptor)", () => {
    assert.equal(readFileSync(DESCRIPTOR, "utf8"), compileDescriptor());
  });
});

describe("otlp-traces fixtures (recorded from the amqplib instrumentation, collectors/otlp-traces/testdata)", () => {
  const testdata = collectorTestdata("otlp-traces");
  const parseFixture = (fixture: string) => parseLines(testdata.read(fixture), openOtlpTraces({ source: `otlp-traces:testdata/${fixture}` }, []));

  for (const fixture of testdata.fixtures(".ndjson")) {
    it(`reads ${fixture} as the golden file says`, () => {
      testdata.assertGolden(fixture, parseFixture(fixture));
    });
  }

  it("reports a line that is not a request, and a span it cannot read, by line", () => {
    const { issues, events } = parseFixture("bad-lines.ndjson");
    assert.deepEqual(
      issues.map((i) => [i.line, i.code]),
      [
        [1, "malformed"],
        [2, "malformed"],
        [3, "malformed"],
        [4, "invalid_field"],
      ],
    );
    assert.match(issues[3]!.reason, /2 span\(s\) not read: span 2: spanId .*; span 3: startTimeUnixNano/);
    assert.deepEqual(events.map((e) => [e.kind, e.bizKey, e.msgId, e.success]), [
      ["consume_start", "ORDER-42", "orders-3@42", null],
      ["consume_end", "ORDER-42", "orders-3@42", false],
    ]);
  });

  for (const [fixture, cause, sameInstance] of [
    ["amqplib-ack-lost.ndjson", "ack_lost", false],
    ["amqplib-producer-retry.ndjson", "producer_retry", true],
  ] as const) {
    it(`diagnoses ${fixture}, spans alone, as ${cause}`, () => {
      const events = parseFixture(fixture).events;
      const keyed = events.filter((e) => e.bizKey !== null);
      const bizKey = keyed[0]!.bizKey!;
      const own = keyed.filter((e) => e.bizKey === bizKey);
      const diagnosis = diagnoseKey({ bizKey, events: own, context: contextOf(own, events.filter((e) => e.bizKey === null)) });
      assert.deepEqual(diagnosis.duplicates.map((d) => d.cause), [cause]);
      // Each client is its own process: the instance is host.name@process.pid.
      assert.equal(diagnosis.duplicates[0]!.sameInstance, sameInstance);
    });
  }
});
