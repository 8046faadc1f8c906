import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { validateEvent } from "../../../lib/events/validate.ts";
import type { ParseResult } from "../../../collectors/types.ts";
import { parse } from "../../../collectors/dedup-log/parse.ts";
import { collectorTestdata } from "../../helpers/golden.ts";

/**
 * The Java emitter (emitters/java): compiled with the machine's javac at the Java 8 language and API level, its own
 * unit test (a plain `main`) run, and the sample program's output compared with the fixture
 * collectors/dedup-log/testdata/java-emitter.dedup.log, which the collector must read with zero issues into the
 * events of its golden file. UPDATE_GOLDEN=1 rewrites the fixture from the program's output and the golden from the
 * parser's.
 */

const EMITTER = path.join(import.meta.dirname, "..", "..", "..", "emitters", "java");
const FIXTURE = "java-emitter.dedup.log";
const testdata = collectorTestdata("dedup-log");

function javaSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return javaSources(full);
    return name.endsWith(".java") ? [full] : [];
  });
}

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
  if (result.error) throw result.error;
  return result;
}

function hasTool(tool: string): boolean {
  const result = spawnSync(tool, ["-version"], { stdio: "ignore" });
  return result.error === undefined && result.status === 0;
}

const MISSING_JDK = "javac not found: the Java emitter test needs a JDK (Debian's openjdk-17-jdk-headless); run npm run setup:test (as root)";

if (!hasTool("javac") || !hasTool("java")) {
  // One failing test with one line, rather than every test cancelled by a failed hook.
  it("dedup log Java emitter", () => {
    const error = new Error(MISSING_JDK);
    error.stack = `Error: ${MISSING_JDK}`;
    throw error;
  });
} else {
  describe("dedup log Java emitter", () => {
    let classes = "";

    before(() => {
      classes = mkdtempSync(path.join(tmpdir(), "dupscope-java-emitter-"));
      const sources = ["src", "stub", "test"].flatMap((dir) => javaSources(path.join(EMITTER, dir)));
      // --release 8: the emitter must build for the Java 8 consumers RocketMQ 4.x still runs on.
      const javac = run("javac", ["--release", "8", "-encoding", "UTF-8", "-Xlint:all,-options", "-Werror", "-d", classes, ...sources]);
      assert.equal(javac.status, 0, `javac failed:\n${javac.stdout}${javac.stderr}`);
    });

    after(() => {
      if (classes) rmSync(classes, { recursive: true, force: true });
    });

    it("compiles the examples of its README against itself", () => {
      // Each ```java block of emitters/java/README.md goes where it belongs in an application: the listener's
      // consumeMessage into the listener, the consumer's wiring and the API calls into methods of their own. The
      // RocketMQ consumer and the application's Redis and service are stand-ins, as the stub's classes are.
      const readme = readFileSync(path.join(EMITTER, "README.md"), "utf8");
      const blocks = [...readme.matchAll(/^```java\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
      assert.ok(blocks.length >= 3, `the README has ${blocks.length} java blocks`);
      const listener = blocks.filter((b) => b.includes("public ConsumeConcurrentlyStatus consumeMessage("));
      const wiring = blocks.filter((b) => b.includes("new DefaultMQPushConsumer(") && !listener.includes(b));
      const calls = blocks.filter((b) => !listener.includes(b) && !wiring.includes(b));
      assert.equal(listener.length, 1, "one block is the listener's consumeMessage");
      const dir = mkdtempSync(path.join(tmpdir(), "dupscope-java-readme-"));
      try {
        const consumerStub = path.join(dir, "org", "apache", "rocketmq", "client", "consumer");
        mkdirSync(consumerStub, { recursive: true });
        writeFileSync(
          path.join(consumerStub, "DefaultMQPushConsumer.java"),
          `package org.apache.rocketmq.client.consumer;
import org.apache.rocketmq.client.consumer.listener.MessageListener;
public class DefaultMQPushConsumer {
    public DefaultMQPushConsumer(String consumerGroup) {}
    public void subscribe(String topic, String subExpression) {}
    public void registerMessageListener(MessageListener listener) {}
    public void start() {}
    public String buildMQClientId() { return "10.8.3.17@23817"; }
}
`,
        );
        mkdirSync(path.join(dir, "readme"));
        const method = (name: string, params: string, body: string) => `    static void ${name}(${params}) throws Exception {\n${body}    }\n`;
        writeFileSync(
          path.join(dir, "readme", "ReadmeExamples.java"),
          `package readme;
import dupscope.dedup.DedupLog;
import dupscope.dedup.DedupLogListener;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

final class ReadmeExamples {
    interface ValueOperations { Boolean setIfAbsent(String key, String value, Duration timeout); }
    interface Redis { ValueOperations opsForValue(); }
    interface Points { void award(MessageExt msg); }

    static final class AwardPointsListener implements MessageListenerConcurrently {
        private final Redis redis;
        private final Points points;
        AwardPointsListener(Redis redis, Points points) { this.redis = redis; this.points = points; }
        @Override
${listener[0]}    }

${wiring.map((b, i) => method(`wiring${i}`, "Redis redis, Points points", b)).join("\n")}
${calls.map((b, i) => method(`calls${i}`, "DefaultMQPushConsumer consumer, MessageExt msg, MessageQueue mq, String orderId, Exception e", b)).join("\n")}
}
`,
        );
        const sources = [...["src", "stub"].flatMap((d) => javaSources(path.join(EMITTER, d))), ...javaSources(dir)];
        const javac = run("javac", ["--release", "8", "-encoding", "UTF-8", "-Xlint:all,-options,-processing", "-d", path.join(dir, "classes"), ...sources]);
        assert.equal(javac.status, 0, `the README's examples do not compile:\n${javac.stdout}${javac.stderr}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("passes its own Java unit test", () => {
      const test = run("java", ["-cp", classes, "dupscope.dedup.DedupLogTest"]);
      assert.equal(test.status, 0, `${test.stdout}${test.stderr}`);
      assert.match(test.stdout, /^DedupLogTest: (\d+)\/\1 checks passed$/m);
    });

    describe("the sample program's log", () => {
      let output = "";
      let result: ParseResult;

      before(() => {
        const sample = run("java", ["-cp", classes, "dupscope.dedup.DedupLogSample"]);
        assert.equal(sample.status, 0, sample.stderr);
        assert.equal(sample.stderr, "");
        output = sample.stdout;
        if (process.env.UPDATE_GOLDEN === "1") writeFileSync(testdata.path(FIXTURE), output);
        result = parse(output, { source: `dedup-log:testdata/${FIXTURE}`, utcOffset: "+08:00" });
      });

      it("is the fixture, byte for byte", () => {
        assert.equal(output, testdata.read(FIXTURE));
      });

      it("is read by the collector unchanged: no issue, one event per line, each one the store accepts as it is", () => {
        assert.deepEqual(result.issues, []);
        assert.equal(result.events.length, output.split("\n").filter((line) => line !== "").length);
        for (const event of result.events) {
          const checked = validateEvent(event);
          assert.ok(checked.ok, checked.ok ? "" : checked.reason);
          assert.deepEqual(checked.event, event);
        }
      });

      it("yields the events of the golden file", () => {
        testdata.assertGolden(FIXTURE, result);
      });

      it("keeps quotes, backslashes, CJK, emoji, control characters and line breaks exactly", () => {
        const bizKey = '会员"王小明"\\ORD-20261130-110377';
        const failed = result.events.find((e) => e.bizKey === bizKey && e.detail.decision === "failed");
        assert.ok(failed, `no failed event for ${bizKey}`);
        assert.equal(failed.detail.dedupKey, `points:${bizKey}`);
        assert.equal(
          failed.detail.error,
          `java.lang.IllegalStateException: ledger rejected award for ${bizKey}:\n\t{"code":"LOCK_WAIT","path":"C:\\ledger\\points"}` +
            "\r\n\tcaused by: Lock wait timeout exceeded; try restarting transaction \u2028 ✓ 🎯 \u0001",
        );
        const kafka = result.events.find((e) => e.broker === "kafka" && e.detail.decision === "failed");
        assert.match(String(kafka?.detail.error), /; Lock wait timeout exceeded\n\tat D:\\apps\\points\\lib\\ledger\.jar!\/Ledger\.class$/);
      });

      it("tells each key's story: caught, retried, lost, leaked, raced, batched", () => {
        const story = new Map<string | null, string[]>();
        for (const e of result.events) {
          const steps = story.get(e.bizKey) ?? [];
          steps.push(`${e.instance} ${e.detail.layer} ${e.detail.decision}${e.retryTimes ? ` r${e.retryTimes}` : ""}`);
          story.set(e.bizKey, steps);
        }
        const [a, b] = ["10.8.3.17@23817", "10.8.3.18@4102"];
        assert.deepEqual(Object.fromEntries(story), {
          "ORD-20261130-110231": [`${a} bloom pass`, `${a} redis pass`, `${a} redis executed`, `${b} redis hit`],
          '会员"王小明"\\ORD-20261130-110377': [
            `${a} bloom pass`,
            `${a} redis pass`,
            `${a} redis failed`,
            `${a} redis released`,
            `${a} redis pass r1`,
            `${a} redis executed r1`,
          ],
          "ORD-20261130-110412": [`${a} bloom pass`, `${a} redis pass`, `${a} redis failed`, `${b} redis hit r1`],
          "ORD-20261130-110298": [`${a} bloom pass`, `${a} redis pass`, `${a} redis executed`, `${b} redis pass`, `${b} redis executed`],
          "ORD-20261130-110450": ["10.8.4.21@9051 db pass", "10.8.4.22@9113 db hit", "10.8.4.21@9051 db executed"],
          "ORD-20261130-110502": ["10.8.6.3@1207 state pass", "10.8.6.3@1207 state executed", "10.8.6.3@1207 state hit"],
          "ORD-20261130-110533": ["10.8.6.3@1207 state failed"],
          "0A0803064C1F18B4AAC27E62B7440000": ["10.8.6.3@1207 state pass", "10.8.6.3@1207 state executed"],
          "ORD-20261130-110600": [
            "10.8.5.9@311 redis pass",
            "10.8.5.9@311 redis failed",
            "10.8.5.9@311 redis released",
            "10.8.5.9@311 redis pass",
            "10.8.5.9@311 redis executed",
          ],
        });
      });
    });
  });
}
