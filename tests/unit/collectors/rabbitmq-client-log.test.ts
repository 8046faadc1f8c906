import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parse } from "../../../collectors/rabbitmq-client-log/parse.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import { collectorTestdata } from "../../helpers/golden.ts";

const testdata = collectorTestdata("rabbitmq-client-log");
const run = (text: string) => parse(text, { source: "rabbitmq-client-log:test", instance: "10.0.0.7@311", inputTime: Date.parse("2026-12-07T00:00:00Z") });

describe("rabbitmq-client-log", () => {
  it("parses consumers.log as the golden file says", () => testdata.assertGolden("consumers.log", parse(testdata.read("consumers.log"), { source: "rabbitmq-client-log:testdata/consumers.log" })));

  it("reads the broker's close in each client's rendering, the process as the instance", () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ["amqp.exceptions.PreconditionFailed: (0, 0): (406) PRECONDITION_FAILED - delivery acknowledgement on channel 3 timed out. Timeout value used: 900000 ms.", "ack_timeout", { channel: 3, timeoutMs: 900000 }],
      ["Error: Channel closed by server: 406 (PRECONDITION-FAILED) with message \"PRECONDITION_FAILED - unknown delivery tag 1\"", "channel_closed", {}],
      ["com.rabbitmq.client.ShutdownSignalException: connection error; protocol method: #method<connection.close>(reply-code=320, reply-text=CONNECTION_FORCED - Closed via management plugin, class-id=0, method-id=0)", "connection_closed", {}],
      ["ConnectionForced(None, 'Too many heartbeats missed', None, '')", "heartbeat_missed", {}],
      ['{"level":"error","ts":"2026-12-07T10:00:00Z","msg":"consume failed","error":"Exception (501) Reason: \\"EOF\\""}', "connection_lost", {}],
      ["pika.exceptions.AMQPHeartbeatTimeout: No activity or too many missed heartbeats in the last 60 seconds", "heartbeat_missed", { heartbeatTimeoutS: 60, exception: "pika.exceptions.AMQPHeartbeatTimeout" }],
      ["RabbitMQ.Client.Exceptions.AlreadyClosedException: Already closed: The AMQP operation was interrupted: AMQP close-reason, initiated by Library, code=0, text=\"End of stream\", classId=0, methodId=0, cause=System.IO.EndOfStreamException: Heartbeat missing with heartbeat == 5 seconds", "heartbeat_missed", { heartbeatTimeoutS: 5 }],
      ["The AMQP operation was interrupted: AMQP close-reason, initiated by Library, code=541, text=\"Unexpected Exception\", classId=0, methodId=0, cause=System.IO.IOException: Unable to read data from the transport connection", "connection_lost", {}],
      ['development.ERROR: Missed server heartbeat {"exception":"[object] (PhpAmqpLib\\\\Exception\\\\AMQPHeartbeatMissedException(code: 0): Missed server heartbeat', "heartbeat_missed", { exception: "PhpAmqpLib\\Exception\\AMQPHeartbeatMissedException" }],
      ["Error: Unexpected close", "connection_lost", {}],
      ['Error: Connection closed: 541 (INTERNAL-ERROR) with message "INTERNAL_ERROR"', "connection_closed", {}],
      ["[2019-08-09T16:01:16Z ERROR lapin::channel] Connection closed on channel 0 by 60:40 => Hard(UNEXPECTEDFRAME) => UNEXPECTED_FRAME - expected content body", "connection_closed", {}],
      ["RabbitMQ.Client.Exceptions.OperationInterruptedException: The AMQP operation was interrupted: AMQP close-reason, initiated by Peer, code=541, text='INTERNAL_ERROR'", "connection_closed", {}],
      ["PhpAmqpLib\\Exception\\AMQPChannelClosedException: Channel connection is closed.", "channel_closed", {}],
      ["Restarting Consumer@63fdab07: tags=[[amq.ctag-8ub2RbGR8XG9edPLAN2MMA]], channel=Cached Rabbit Channel: AMQChannel(amqp://guest@127.0.0.1:5673/,1), conn: Proxy@54a67a45", "channel_closed", { channel: 1 }],
    ];
    for (const [line, action, fields] of cases) {
      const { events, issues } = run(line);
      assert.deepEqual(issues, [], line);
      assert.equal(events.length, 1, line);
      const e = events[0]!;
      assert.equal(e.detail.action, action, line);
      assert.equal(e.instance, "10.0.0.7@311");
      for (const [name, value] of Object.entries(fields)) assert.equal(e.detail[name], value, `${name} of ${line}`);
      assert.ok(validateEvent(e).ok);
    }
  });

  it("reads nothing from ordinary lines: a connect, an ack sent, a consumer started", () => {
    for (const line of ["[2026-12-07 13:56:00,000: INFO/MainProcess] Connected to amqp://guest:**@127.0.0.1:5672//", "channel.basicAck([1113, false])", "Starting consumer Consumer@2ca85a66: tags=[[]]"]) {
      assert.deepEqual(run(line).events, [], line);
    }
  });

  it("takes the consumer tag of a close from the record's first line, when the exception under it states the close", () => {
    const record = [
      "2022-07-25 17:29:16.789 [pool-3-thread-6] DEBUG o.s.amqp.rabbit.listener.BlockingQueueConsumer - Received shutdown signal for consumer tag=amq.ctag-xZNo8sCDs9gvvJNy-CYfHw",
      "com.rabbitmq.client.ShutdownSignalException: channel error; protocol method: #method<channel.close>(reply-code=406, reply-text=PRECONDITION_FAILED - unknown delivery tag 2, class-id=60, method-id=80)",
      "\tat com.rabbitmq.client.impl.ChannelN.asyncShutdown(ChannelN.java:517)",
    ].join("\n");
    const [e] = run(record).events;
    assert.deepEqual([e?.detail.action, e?.detail.consumerTag], ["channel_closed", "amq.ctag-xZNo8sCDs9gvvJNy-CYfHw"]);
  });

  it("reads a Python traceback's exception line after any number of frames (property)", () => {
    const frame = fc.constantFrom('  File "/app/worker.py", line 50, in <module>', "    channel.start_consuming()", '  File "/usr/lib/python3/site-packages/pika/adapters/blocking_connection.py", line 523, in _flush_output', "    raise self._closed_result.value.error");
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 60 }), (frames) => {
        const text = ["Traceback (most recent call last):", ...frames, "pika.exceptions.StreamLostError: Stream connection lost: ConnectionResetError(104, 'Connection reset by peer')"].join("\n");
        const { events } = run(text);
        assert.equal(events.length, 1);
        assert.equal(events[0]!.detail.action, "connection_lost");
        assert.equal(events[0]!.detail.exception, "pika.exceptions.StreamLostError");
      }),
    );
  });

  it("reads a hard error (5xx) by its name as the connection's close, in any client's rendering (property)", () => {
    const names = ["FRAME_ERROR", "SYNTAX_ERROR", "COMMAND_INVALID", "CHANNEL_ERROR", "UNEXPECTED_FRAME", "RESOURCE_ERROR", "NOT_ALLOWED", "NOT_IMPLEMENTED", "INTERNAL_ERROR"];
    const rendered = fc.constantFrom(
      (n: string) => `amqp.exceptions.AMQPError: Basic.consume: (540) ${n} - queue 'q' in vhost 'v' does not support global qos`,
      (n: string) => `W, [2026-12-07T10:00:00.000000 #1]  WARN -- #<Bunny::Session:0x1 u@h:5672, vhost=/>: Recovering from connection.close (${n} - expected 'channel.open')`,
      (n: string) => JSON.stringify({ level: "error", msg: "connection closed", reason: `${n} - expected 'channel.open'` }),
    );
    fc.assert(fc.property(fc.constantFrom(...names), rendered, (name, render) => assert.deepEqual(run(render(name)).events.map((e) => e.detail.action), ["connection_closed"])));
  });

  it("reads the clients' own I/O-loss wordings as a lost connection, and not a program's connection.close() (property)", () => {
    const lost = fc.constantFrom(
      "Channel shutdown: connection error",
      "com.rabbitmq.client.ShutdownSignalException: connection error",
      "Read empty data, calling disconnect",
      "amqp.exceptions.RecoverableConnectionError: Socket was disconnected",
      "Library error: a socket error occurred",
      "Exception in the reader loop: IOError: closed stream",
      "amqp_consume_message failed: AMQP_STATUS_CONNECTION_CLOSED",
      "Disconnected from RMQ. Trying to reconnect.",
    );
    const prefix = fc.constantFrom("", "2026-12-07 10:00:00.000 ERROR 1 --- [main] c.e.Worker : ", "worker-1  | ", "2026-12-06T10:00:00+00:00 host worker[42]: ERROR ");
    fc.assert(fc.property(prefix, lost, (p, line) => assert.deepEqual(run(p + line).events.map((e) => e.detail.action), ["connection_lost"])));
    assert.deepEqual(run('  File "/app/consumer.py", line 49, in consume\n    self.connection.close()').events, []);
  });

  it("names Ruby's and pika's exceptions, and pika's virtual_host", () => {
    const [bunny] = run("#<Bunny::AccessRefused: ACCESS_REFUSED - queue 'q1' in vhost '/' in exclusive use>").events;
    assert.equal(bunny?.detail.exception, "Bunny::AccessRefused");
    const [pika] = run("pika.exceptions.ChannelClosedByBroker: (406, \"PRECONDITION_FAILED - inequivalent arg 'durable' for queue 'q' in vhost 'v'\")").events;
    assert.equal(pika?.detail.exception, "pika.exceptions.ChannelClosedByBroker");
    const [params] = run("Connection close detected; result=BlockingConnection__OnClosedArgs(connection=<SelectConnection CLOSED socket=None params=<URLParameters host=mq port=5672 virtual_host=planet ssl=False>>, reason_code=-1, reason_text='EOF')").events;
    assert.deepEqual([params?.detail.action, params?.detail.vhost], ["connection_lost", "planet"]);
  });

  it("never throws and emits only valid events, whatever the line (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom("PRECONDITION_FAILED - unknown delivery tag 1", "CONNECTION_FORCED", "Caused by: x")), { maxLength: 8 }), (lines) => {
        for (const e of run(lines.join("\n")).events) assert.ok(validateEvent(e).ok);
      }),
    );
  });
});
