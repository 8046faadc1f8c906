import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { validateEvent } from "../../../lib/events/validate.ts";
import type { ParseResult } from "../../../collectors/types.ts";
import { parse } from "../../../collectors/dedup-log/parse.ts";
import { collectorTestdata } from "../../helpers/golden.ts";
import { orderRowScript, orderTable, outcomes, runDedupScript } from "../../helpers/dedup-emitter.ts";

/**
 * The Java emitter (emitters/java), built twice with the machine's javac at the Java 8 language and API level:
 *
 *   copy-in  DedupLog.java copied alone into an application's src/main/java (in its package, and in another),
 *            compiled with the JDK only; then DedupLogListener.java copied beside it
 *   Maven    the modules emitters/java/pom.xml names, each compiled from its src/main/java as Maven would: the
 *            listener module against the writer's classes and, for the RocketMQ client it has as `provided`, the
 *            stub in emitters/java/stub, whose classes stay out of the module's
 *
 * Each build runs the emitter's own unit test (a plain `main`) and the sample program, whose output must be the
 * fixture collectors/dedup-log/testdata/java-emitter.dedup.log byte for byte; the collector must read it with zero
 * issues into the events of its golden file. The Maven build also runs the table "One delivery, in order" of
 * docs/dedup-log.md row by row, and must write what the Node.js emitter writes for the same calls. UPDATE_GOLDEN=1
 * rewrites the fixture from the program's output and the golden from the parser's. `mvn package` itself is for
 * users: no Maven repository is reachable where this runs.
 */

const EMITTER = path.join(import.meta.dirname, "..", "..", "..", "emitters", "java");
const STUB = path.join(EMITTER, "stub");
const TESTS = path.join(EMITTER, "test");
const MAIN = path.join("src", "main", "java");
const PACKAGE_DIR = path.join("dupscope", "dedup");
const WRITER = path.join(EMITTER, "dedup-log", MAIN, PACKAGE_DIR, "DedupLog.java");
const LISTENER = path.join(EMITTER, "dedup-log-rocketmq", MAIN, PACKAGE_DIR, "DedupLogListener.java");
const FIXTURE = "java-emitter.dedup.log";
const testdata = collectorTestdata("dedup-log");

function javaSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return javaSources(full);
    return name.endsWith(".java") ? [full] : [];
  });
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

function run(command: string, args: string[], input?: string) {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024, ...(input !== undefined ? { input } : {}) });
  if (result.error) throw result.error;
  return result;
}

/** javac at Java 8's level, every warning an error; `sourcepath` lends types (the stub) without emitting them. */
function javac(out: string, sources: string[], options: { classpath?: string[]; sourcepath?: string; lint?: string } = {}): void {
  const args = ["--release", "8", "-encoding", "UTF-8", options.lint ?? "-Xlint:all,-options", "-Werror", "-d", out];
  if (options.classpath) args.push("-cp", options.classpath.join(path.delimiter));
  if (options.sourcepath) args.push("-sourcepath", options.sourcepath, "-implicit:none");
  const result = run("javac", [...args, ...sources]);
  assert.equal(result.status, 0, `javac failed:\n${result.stdout}${result.stderr}`);
}

function hasTool(tool: string): boolean {
  const result = spawnSync(tool, ["-version"], { stdio: "ignore" });
  return result.error === undefined && result.status === 0;
}

/** The text of an element of a pom, or of each of its repeated elements. */
function pomValues(pom: string, element: string): string[] {
  return [...pom.matchAll(new RegExp(`<${element}>([^<]*)</${element}>`, "g"))].map((m) => m[1]!.trim());
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
    let dir = "";
    /** The classpath of each build's application: its classes, the RocketMQ types, the test programs. */
    const builds: Record<"copy-in" | "Maven", string[]> = { "copy-in": [], Maven: [] };
    let mavenModules: Record<string, string> = {};

    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), "dupscope-java-emitter-"));

      // copy-in: the file as a user copies it, alone, then in a package of the application's own.
      const app = path.join(dir, "app");
      const own = path.join(app, MAIN, PACKAGE_DIR, "DedupLog.java");
      const renamed = path.join(app, MAIN, "com", "example", "points", "dedup", "DedupLog.java");
      mkdirSync(path.dirname(own), { recursive: true });
      mkdirSync(path.dirname(renamed), { recursive: true });
      copyFileSync(WRITER, own);
      const source = readFileSync(WRITER, "utf8");
      assert.match(source, /^package dupscope\.dedup;$/m);
      writeFileSync(renamed, source.replace(/^package dupscope\.dedup;$/m, "package com.example.points.dedup;"));
      javac(path.join(app, "classes"), [own, renamed]);
      copyFileSync(LISTENER, path.join(app, MAIN, PACKAGE_DIR, "DedupLogListener.java"));
      javac(path.join(app, "classes"), [path.join(app, MAIN, PACKAGE_DIR, "DedupLogListener.java")], { classpath: [path.join(app, "classes")], sourcepath: STUB });

      // Maven: module by module, as the reactor orders them (the listener's module depends on the writer's).
      const pom = readFileSync(path.join(EMITTER, "pom.xml"), "utf8");
      const classpath: string[] = [];
      for (const module of pomValues(pom, "module")) {
        const out = path.join(dir, "maven", module);
        javac(out, javaSources(path.join(EMITTER, module, MAIN)), { classpath, sourcepath: STUB });
        mavenModules[module] = out;
        classpath.push(out);
      }
      // The test programs, with the stub's classes (the RocketMQ client an application runs with), compiled once:
      // each build runs them against its own classes, first on the classpath.
      const tests = path.join(dir, "test-classes");
      javac(tests, [...javaSources(TESTS), ...javaSources(STUB)], { classpath });
      builds.Maven = [...classpath, tests];
      builds["copy-in"] = [path.join(app, "classes"), tests];
    });

    after(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("copy-in: DedupLog.java compiles alone with the JDK, in its own package or another", () => {
      const classes = files(builds["copy-in"][0]!).filter((f) => !f.includes("DedupLogListener"));
      assert.deepEqual(
        classes.map((f) => path.dirname(f)).filter((d, i, all) => all.indexOf(d) === i),
        [path.join("com", "example", "points", "dedup"), PACKAGE_DIR],
      );
      assert.ok(classes.some((f) => f.endsWith(`${path.sep}DedupLog$Builder.class`)));
    });

    it("Maven: a parent pom and two versioned modules, the writer with no dependency and the RocketMQ listener optional beside it", () => {
      const parent = readFileSync(path.join(EMITTER, "pom.xml"), "utf8");
      assert.deepEqual(pomValues(parent, "module"), ["dedup-log", "dedup-log-rocketmq"]);
      assert.deepEqual(pomValues(parent, "packaging"), ["pom"]);
      const [groupId] = pomValues(parent, "groupId");
      const [version] = pomValues(parent, "version").filter((v) => /^\d+\.\d+\.\d+$/.test(v));
      assert.ok(groupId && version, "the parent names a groupId and a version");
      const writer = readFileSync(path.join(EMITTER, "dedup-log", "pom.xml"), "utf8");
      const listener = readFileSync(path.join(EMITTER, "dedup-log-rocketmq", "pom.xml"), "utf8");
      for (const pom of [writer, listener]) {
        assert.ok(pom.includes(`<parent>\n    <groupId>${groupId}</groupId>\n    <artifactId>dupscope-dedup-parent</artifactId>\n    <version>${version}</version>`), pom);
      }
      assert.deepEqual(pomValues(writer, "artifactId"), ["dupscope-dedup-parent", "dupscope-dedup-log"]);
      assert.ok(!writer.includes("<dependencies>"), "the writer depends on nothing but the JDK");
      assert.deepEqual(pomValues(listener, "artifactId"), ["dupscope-dedup-parent", "dupscope-dedup-log-rocketmq", "dupscope-dedup-log", "rocketmq-client"]);
      assert.deepEqual(pomValues(listener, "scope"), ["provided"], "the application brings its own RocketMQ client");
      // Each module's sources are its src/main/java and nothing else: the file a user copies is the one Maven builds.
      assert.deepEqual(javaSources(path.join(EMITTER, "dedup-log")), [WRITER]);
      assert.deepEqual(javaSources(path.join(EMITTER, "dedup-log-rocketmq")), [LISTENER]);
    });

    it("Maven: the listener's module holds only its own classes, none of the RocketMQ client's", () => {
      assert.deepEqual(files(mavenModules["dedup-log-rocketmq"]!), [path.join(PACKAGE_DIR, "DedupLogListener$BizKey.class"), path.join(PACKAGE_DIR, "DedupLogListener.class")]);
      assert.ok(files(mavenModules["dedup-log"]!).every((f) => f.startsWith(PACKAGE_DIR + path.sep) && path.basename(f).startsWith("DedupLog")));
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
      const examples = path.join(dir, "readme");
      const consumerStub = path.join(examples, "org", "apache", "rocketmq", "client", "consumer");
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
      mkdirSync(path.join(examples, "readme"));
      const method = (name: string, params: string, body: string) => `    static void ${name}(${params}) throws Exception {\n${body}    }\n`;
      const params = "DefaultMQPushConsumer consumer, MessageExt msg, MessageQueue mq, String orderId, Redis redis, Points points";
      writeFileSync(
        path.join(examples, "readme", "ReadmeExamples.java"),
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
    interface Redis { ValueOperations opsForValue(); Boolean delete(String key); }
    interface Points { void award(MessageExt msg); }

    static final class AwardPointsListener implements MessageListenerConcurrently {
        private final Redis redis;
        private final Points points;
        AwardPointsListener(Redis redis, Points points) { this.redis = redis; this.points = points; }
        @Override
${listener[0]}    }

${wiring.map((b, i) => method(`wiring${i}`, "Redis redis, Points points", b)).join("\n")}
${calls.map((b, i) => method(`calls${i}`, params, b)).join("\n")}
}
`,
      );
      const classpath = Object.values(mavenModules);
      javac(path.join(examples, "classes"), javaSources(examples), { classpath, sourcepath: STUB, lint: "-Xlint:all,-options,-processing" });
    });

    it("passes its own Java unit test", () => {
      const test = run("java", ["-cp", builds.Maven.join(path.delimiter), "dupscope.dedup.DedupLogTest"]);
      assert.equal(test.status, 0, `${test.stdout}${test.stderr}`);
      assert.match(test.stdout, /^DedupLogTest: (\d+)\/\1 checks passed$/m);
    });

    for (const build of ["copy-in", "Maven"] as const) {

      it(`${build}: the sample program writes the fixture, byte for byte`, () => {
        const sample = run("java", ["-cp", builds[build].join(path.delimiter), "dupscope.dedup.DedupLogSample"]);
        assert.equal(sample.status, 0, sample.stderr);
        assert.equal(sample.stderr, "");
        if (process.env.UPDATE_GOLDEN === "1" && build === "Maven") writeFileSync(testdata.path(FIXTURE), sample.stdout);
        assert.equal(sample.stdout, testdata.read(FIXTURE));
      });
    }

    describe("the table \"One delivery, in order\" of docs/dedup-log.md, as the Node.js emitter keeps it", () => {
      const script = (text: string) => {
        const result = run("java", ["-cp", builds.Maven.join(path.delimiter), "dupscope.dedup.DedupLogScript"], text);
        assert.equal(result.status, 0, result.stderr);
        return result.stdout;
      };

      for (const row of orderTable()) {
        it(`after ${row.after ?? "nothing (the first line)"}: the same decisions accepted and refused, the same bytes written`, () => {
          const { script: text, expected } = orderRowScript(row);
          const java = script(text);
          assert.deepEqual(outcomes(java), expected, java);
          assert.equal(java, runDedupScript(text));
        });
      }

      it("lines of one delivery in one millisecond: each 1 ms after the previous, on both sides", () => {
        const text = [
          "log points-award kafka 10.8.3.17@23817",
          "clock 1796011201206",
          "delivery a ORD-1 M1",
          "a redis pass points:ORD-1",
          "a redis failed points:ORD-1",
          "a redis released points:ORD-1",
          "delivery b ORD-2 M1",
          "b none executed",
          "delivery again ORD-1 M1",
          "again redis pass points:ORD-1",
          "clock 1796011201210",
          "again redis executed points:ORD-1",
          "clock 1796011201211",
          "again redis failed points:ORD-1",
        ].join("\n");
        const java = script(text);
        assert.equal(java, runDedupScript(text));
        assert.deepEqual(
          java.trimEnd().split("\n").map((l) => {
            const line = JSON.parse(l) as { ts: number; bizKey: string; decision: string };
            return `${line.bizKey} ${line.decision} ${line.ts - 1796011201206}`;
          }),
          ["ORD-1 pass 0", "ORD-1 failed 1", "ORD-1 released 2", "ORD-2 executed 0", "ORD-1 pass 3", "ORD-1 executed 4", "ORD-1 failed 5"],
        );
      });
    });

    describe("the sample program's log", () => {
      let output = "";
      let result: ParseResult;

      before(() => {
        output = testdata.read(FIXTURE);
        result = parse(output, { source: `dedup-log:testdata/${FIXTURE}`, utcOffset: "+08:00" });
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
