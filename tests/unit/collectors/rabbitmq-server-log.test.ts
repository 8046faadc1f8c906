import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { validateEvent } from "../../../lib/events/validate.ts";
import type { ParseContext, ParseResult } from "../../../collectors/types.ts";
import { openServerLog, parse } from "../../../collectors/rabbitmq-server-log/parse.ts";
import { collectorTestdata } from "../../helpers/golden.ts";

const testdata = collectorTestdata("rabbitmq-server-log");
const FIXTURES = ["rabbitmq-3.10.log", "rabbitmq-3.13.log", "rabbitmq-4.3.log", "bad-lines.log"];

const parseFixture = (fixture: string): ParseResult => parse(testdata.read(fixture), { source: `rabbitmq-server-log:testdata/${fixture}` });
/** Each parse gets its own context: the parser's memory of open messages is per input. */
const run = (text: string) => parse(text, { source: "rabbitmq-server-log:test" });

const H = (time: string, level: string, pid: string) => `2024-10-04 ${time}-04:00 [${level}] ${pid}`;
const CONN = "10.20.0.15:40118 -> 10.20.0.5:5672";

describe("rabbitmq-server-log fixtures", () => {
  for (const fixture of FIXTURES) it(`parses ${fixture} as the golden file says`, () => testdata.assertGolden(fixture, parseFixture(fixture)));

  it("produces only events the ingest API accepts unchanged", () => {
    for (const fixture of FIXTURES) {
      for (const event of parseFixture(fixture).events) {
        const checked = validateEvent(event);
        assert.ok(checked.ok, checked.ok ? "" : checked.reason);
        assert.deepEqual(checked.event, event);
      }
    }
  });
});

describe("server log lines", () => {
  it("reads µs timestamps with their zone as epoch ms", () => {
    const [e] = run(`${H("03:23:52.968389", "info", "<0.1.0>")} closing AMQP connection <0.1.0> (${CONN}, vhost: '/', user: 'guest')\n`).events;
    assert.deepEqual([e!.ts, e!.tsPrecision], [Date.UTC(2024, 9, 4, 7, 23, 52, 968), "ms"]);
  });

  it("joins the two lines of an unexpected close, and strips the client-provided name from the connection", () => {
    const text = [
      `${H("04:02:17.311560", "warning", "<0.5301.0>")} closing AMQP connection <0.5301.0> (${CONN} - invoice-worker-2b11, vhost: 'billing', user: 'invoice'):`,
      `${H("04:02:17.311560", "warning", "<0.5301.0>")} client unexpectedly closed TCP connection`,
    ].join("\n");
    const { events } = run(text);
    assert.equal(events.length, 1);
    assert.deepEqual([events[0]!.instance, events[0]!.detail.action, events[0]!.detail.clientProvidedName], [CONN, "connection_lost", "invoice-worker-2b11"]);
  });

  it("reads missed heartbeats with their timeout", () => {
    const text = [`${H("04:05:40.870022", "error", "<0.5344.0>")} closing AMQP connection <0.5344.0> (${CONN}):`, `${H("04:05:40.870022", "error", "<0.5344.0>")} missed heartbeats from client, timeout: 60s`].join("\n");
    const [e] = run(text).events;
    assert.deepEqual([e!.detail.action, e!.detail.heartbeatTimeoutS], ["heartbeat_missed", 60]);
  });

  for (const [version, warning] of [
    ["3.12 and older", `Consumer 1 on channel 1 has timed out waiting for delivery acknowledgement. Timeout used: 3000 ms. This timeout value can be configured, see consumers doc guide to learn more`],
    ["3.13-4.2", `Consumer 'amq.ctag-x' on channel 1 and queue 'invoice.issue' in vhost 'billing' has timed out waiting for a consumer acknowledgement of a delivery with delivery tag = 42. Timeout used: 3000 ms. This timeout value can be configured, see consumers doc guide to learn more`],
  ] as const) {
    it(`names the channel that timed out (${version}) from the channel error that follows`, () => {
      const text = [
        `${H("03:54:01.004211", "warning", "<0.5238.0>")} ${warning}`,
        `${H("03:54:01.004917", "error", "<0.5238.0>")} Channel error on connection <0.5201.0> (${CONN}, vhost: 'billing', user: 'invoice'), channel 1:`,
        `${H("03:54:01.004917", "error", "<0.5238.0>")} operation none caused a channel exception precondition_failed: delivery acknowledgement on channel 1 timed out. Timeout value used: 3000 ms.`,
      ].join("\n");
      const { events } = run(text);
      assert.equal(events.length, 1);
      assert.deepEqual([events[0]!.instance, events[0]!.detail.action, events[0]!.detail.timeoutMs], [`${CONN}@1`, "ack_timeout", 3000]);
    });
  }

  it("reads the 4.3 warning, which continues on a second line", () => {
    const { events } = parseFixture("rabbitmq-4.3.log");
    const timeout = events.find((e) => e.detail.action === "ack_timeout")!;
    assert.deepEqual([timeout.queue, timeout.detail.messageId, timeout.detail.consumerTag], ["ledger.post", 118, "ctag-ledger-1"]);
  });

  it("keeps other channel exceptions as channel closes", () => {
    const text = [
      `${H("04:10:02.118734", "error", "<0.5410.0>")} Channel error on connection <0.5399.0> (${CONN}, vhost: 'billing', user: 'invoice'), channel 2:`,
      `${H("04:10:02.118734", "error", "<0.5410.0>")} operation basic.ack caused a channel exception precondition_failed: unknown delivery tag 7`,
    ].join("\n");
    const [e] = run(text).events;
    assert.deepEqual([e!.instance, e!.detail.action, e!.detail.reason], [`${CONN}@2`, "channel_closed", "unknown delivery tag 7"]);
  });

  it("reads a channel's exception line quoted on its own, and still as the continuation of a 3.7 record", () => {
    // With no time of its own, the line takes the input's (an upload's or a file's time).
    const alone = parse("operation basic.ack caused a channel exception precondition_failed: unknown delivery tag", { source: "rabbitmq-server-log:test", inputTime: Date.UTC(2026, 10, 30) });
    assert.deepEqual(alone.events.map((e) => [e.detail.action, e.detail.reason]), [["channel_closed", "unknown delivery tag"]]);
    const lager = run(
      "2019-01-02 10:11:12.345 [error] <0.123.0> Channel error on connection <0.110.0> (10.0.0.5:40118 -> 10.0.0.2:5672, vhost: '/', user: 'guest'), channel 1:\n" +
        "operation basic.ack caused a channel exception precondition_failed: unknown delivery tag 1",
    );
    assert.deepEqual(lager.events.map((e) => [e.detail.action, e.instance]), [["channel_closed", "10.0.0.5:40118 -> 10.0.0.2:5672@1"]]);
  });

  it("reads the 2.x–3.3 report wordings: a channel's error with its Erlang term, the reader's closing TCP connection", () => {
    const reports: [string, string, Record<string, unknown>, string | null][] = [
      ["=ERROR REPORT==== 7-Mar-2012::16:40:21 ===\nconnection <0.1210.0>, channel 1 - error:\n{amqp_error,precondition_failed,\"unknown delivery tag 3\",'basic.ack'}", "channel_closed", { channel: 1, reason: "unknown delivery tag 3", operation: "basic.ack" }, null],
      ["=ERROR REPORT==== 18-Feb-2014::09:02:55 ===\nconnection <0.3312.0>, channel 2 - soft error:\n{amqp_error,not_found,\"no queue 'invoices' in vhost '/'\",'queue.declare'}", "channel_closed", { channel: 2, vhost: "/" }, "invoices"],
      ["=INFO REPORT==== 3-Jun-2011::10:14:07 ===\nclosing TCP connection <0.412.0> from 10.1.4.22:52188", "connection_closed", { peer: "10.1.4.22:52188", connectionPid: "<0.412.0>" }, null],
      ["=ERROR REPORT==== 17-Aug-2017::12:22:53 ===\nChannel error on connection <0.754.0> \noperation queue.declare caused a channel exception not_found: no queue 'x1' in vhost 'prod'", "channel_closed", { vhost: "prod" }, "x1"],
    ];
    for (const [text, action, fields, group] of reports) {
      const { events, issues } = run(text);
      assert.deepEqual(issues, [], text);
      assert.equal(events.length, 1, text);
      assert.equal(events[0]!.detail.action, action, text);
      assert.equal(events[0]!.group, group, text);
      for (const [name, value] of Object.entries(fields)) assert.equal(events[0]!.detail[name], value, `${name} of ${text}`);
      assert.ok(validateEvent(events[0]!).ok, text);
    }
  });
});

describe("properties", () => {
  it("never throws, whatever the text", () => {
    fc.assert(fc.property(fc.string({ maxLength: 400 }), (text) => void run(text)));
  });

  const noise = fc.array(
    fc.tuple(fc.integer({ min: 100, max: 999 }), fc.constantFrom("accepting AMQP connection <0.9.0> (1.2.3.4:5 -> 1.2.3.4:5672)", "Running boot step x", "closing AMQP connection <0.9.0> (1.2.3.4:5 -> 1.2.3.4:5672):")),
    { maxLength: 6 },
  );

  it("finds the same events whatever other processes log in between", () => {
    const record = [
      `${H("04:02:17.311560", "warning", "<0.5301.0>")} closing AMQP connection <0.5301.0> (${CONN}, vhost: 'billing', user: 'invoice'):`,
      `${H("04:02:17.311560", "warning", "<0.5301.0>")} client unexpectedly closed TCP connection`,
    ];
    const alone = run(record.join("\n")).events;
    fc.assert(
      fc.property(noise, noise, (before, between) => {
        const other = (list: [number, string][]) => list.map(([pid, msg]) => `${H("04:02:17.311000", "info", `<0.${pid}.0>`)} ${msg}`);
        const events = run([...other(before), record[0]!, ...other(between), record[1]!].join("\n")).events;
        assert.deepEqual(events.filter((e) => e.detail.connectionPid === "<0.5301.0>"), alone);
      }),
    );
  });

  it("produces events the ingest API accepts unchanged for any connection name and reason", () => {
    const text = fc.string({ maxLength: 40 }).filter((s) => !s.includes("\n") && !s.includes("\r"));
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 65535 }), (name, reason, channel) => {
        const lines = [
          `${H("04:10:02.118734", "error", "<0.5410.0>")} Channel error on connection <0.5399.0> (${name}), channel ${channel}:`,
          `${H("04:10:02.118734", "error", "<0.5410.0>")} operation basic.ack caused a channel exception precondition_failed: ${reason}`,
          `${H("04:10:03.000001", "warning", "<0.5411.0>")} closing AMQP connection <0.5411.0> (${name}):`,
          `${H("04:10:03.000001", "warning", "<0.5411.0>")} ${reason}`,
        ];
        for (const event of run(lines.join("\n")).events) {
          const checked = validateEvent(event);
          assert.ok(checked.ok, checked.ok ? "" : checked.reason);
          assert.deepEqual(checked.event, event);
        }
      }),
    );
  });

  it("keeps open records per input: one parser's first line is not completed by another's", () => {
    const [first, second] = [openServerLog({ source: "a" }), openServerLog({ source: "b" })];
    first.line(`${H("04:02:17.311560", "warning", "<0.5301.0>")} closing AMQP connection <0.5301.0> (${CONN}):`, 1);
    const alone = [...second.line(`${H("04:02:17.311560", "warning", "<0.5301.0>")} client unexpectedly closed TCP connection`, 1).events, ...second.end().events];
    // The other input's reason under its own header is a loss of its own, without the connection the first names.
    assert.deepEqual(alone.map((e) => [e.detail.action, e.detail.connection]), [["connection_lost", ""]]);
    first.line(`${H("04:02:17.311560", "warning", "<0.5301.0>")} client unexpectedly closed TCP connection`, 2);
    assert.equal(first.end().events[0]?.detail.action, "connection_lost");
  });
});

describe("shipping prefixes", () => {
  const records = [
    [
      "2024-10-04 03:23:52.968389-04:00 [warning] <0.5301.0> closing AMQP connection <0.5301.0> (10.20.0.15:40118 -> 10.20.0.5:5672, vhost: 'billing', user: 'invoice'):",
      "2024-10-04 03:23:52.968389-04:00 [warning] <0.5301.0> client unexpectedly closed TCP connection",
    ],
    ["2019-01-02 10:11:12.345 [warning] <0.123.0> closing AMQP connection <0.123.0> (10.0.0.1:5000 -> 10.0.0.2:5672):", "missed heartbeats from client, timeout: 60s"],
    ["=ERROR REPORT==== 16-Sep-2018::05:49:26 ===", "closing AMQP connection <0.6725.20> (127.0.0.1:50504 -> 127.0.0.1:5672):", "missed heartbeats from client, timeout: 60s"],
  ];
  const prefix = fc.constantFrom("rabbitmq-1  | ", "rabbitmq_1           | ", "2024-10-04T07:23:52.968389123Z ");

  it("reads the same records behind a container or kubectl prefix on every physical line", () => {
    for (const record of records) {
      const meaning = (lines: string[]) => run(lines.join("\n")).events.map((e) => [e.kind, e.ts, e.detail.action, e.detail.connection, e.detail.heartbeatTimeoutS]);
      const plain = meaning(record);
      assert.equal(plain.length, 1, record[0]);
      fc.assert(fc.property(prefix, (p) => assert.deepEqual(meaning(record.map((line) => p + line)), plain)));
    }
  });
});
