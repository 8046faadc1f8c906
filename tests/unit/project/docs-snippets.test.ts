import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { anchorsOf, checkDocs, checkMarkdown, formatReports, loadContext, shellCommands, type Context } from "../../../scripts/docs-check.ts";

/** `npm run docs:check` in the test run: every doc example against the code (scripts/docs-check.ts says what). */
describe("doc examples", () => {
  it("every example in README.md, docs/ and the READMEs of collectors/, lib/, emitters/ and tests/fixtures/ matches the code", async () => {
    const reports = await checkDocs();
    assert.ok(reports.length >= 10, `only ${reports.length} docs found`);
    assert.ok(reports.some((r) => r.file === "README.md"));
    assert.ok(reports.some((r) => r.ran > 0), "no example was run for real");
    const problems = reports.flatMap((r) => r.problems);
    assert.equal(problems.length, 0, formatReports(reports).join("\n"));
  });
});

describe("docs:check finds drift", () => {
  let ctx: Context;
  before(async () => {
    ctx = await loadContext(undefined, { run: true });
  });

  const problemsOf = (doc: string) => checkMarkdown(ctx, "docs/EXAMPLE.md", doc).problems.map((p) => `${p.line}: ${p.message}`);
  const expectProblem = (problems: string[], line: number, text: string) =>
    assert.ok(
      problems.some((p) => p.startsWith(`${line}: `) && p.includes(text)),
      `expected "${text}" at line ${line}; got:\n${problems.join("\n")}`,
    );

  it("in shell commands: npm scripts, the CLI's commands, options and formats, routes, npx and variables", () => {
    const problems = problemsOf(
      [
        "```sh",
        "npm run no-such-script", // 2
        "npm run demo -- --scale 1 --no-such-option", // 3
        "npx dupscope ingest --format no-such-format f.log", // 4
        "npx dupscope ingest --format auto --no-such-option f.log", // 5
        "dupscope no-such-command", // 6
        "curl -X DELETE localhost:3000/api/v1/events", // 7
        "curl localhost:3000/api/v1/no/such/route", // 8
        "DUPSCOPE_NOT_READ=1 npm start", // 9
        "npx some-tool-not-installed", // 10
        "npx dupscope diagnose KEY   # the same; --json, --no-such-flag", // 11
        "                            # --also-missing", // 12
        "```",
      ].join("\n"),
    );
    expectProblem(problems, 2, "npm run no-such-script: no such script");
    expectProblem(problems, 3, "reads no option --no-such-option");
    expectProblem(problems, 4, "--format no-such-format: not a registered format");
    expectProblem(problems, 5, "dupscope ingest: no option --no-such-option");
    expectProblem(problems, 6, "dupscope no-such-command: no such command");
    expectProblem(problems, 7, "exports no DELETE");
    expectProblem(problems, 8, "no route app/api/v1/no/such/route/route.ts");
    expectProblem(problems, 9, "DUPSCOPE_NOT_READ: no code");
    expectProblem(problems, 10, "npx some-tool-not-installed: not installed");
    expectProblem(problems, 11, "no option --no-such-flag");
    expectProblem(problems, 12, "no option --also-missing");
    assert.ok(!problems.some((p) => p.includes("no option --json")), problems.join("\n"));
    assert.equal(problems.length, 11, problems.join("\n"));
  });

  it("passes what is right, with placeholders, brackets and quoting", () => {
    const problems = problemsOf(
      [
        "```sh",
        "npm install && npm start",
        "npm run demo -- --scale 0.2 --seed 7",
        "npx dupscope ingest --format rocketmq-client-log --instance 10.0.0.5@4121 ~/logs/rocketmq_client.log",
        "npx dupscope rabbitmq collect --url amqp://u:p@mq:5672 --vhost / --key 'json:$.orderId'",
        "curl -X POST --data-binary @e.ndjson -H 'content-type: application/x-ndjson' localhost:3000/api/v1/events",
        "curl localhost:3000/api/v1/keys/ORDER-1",
        "DUPSCOPE_PASSWORD='…' npm start",
        "```",
        "",
        "`dupscope explain <file|->`, `dupscope simulate --keys N --out DIR [--skew-ms MS]`, `GET /api/v1/keys/{bizKey}`.",
      ].join("\n"),
    );
    assert.deepEqual(problems, []);
  });

  it("in json, yaml and ts blocks", () => {
    const problems = problemsOf(
      [
        "```json", // 1
        '{"a": 1,}', // 2
        "```",
        "```json", // 4
        '{"a": 1}', // 5: NDJSON is fine
        '{"b": 2}',
        "```",
        "```jsonc",
        '{"a": 1, /* not checked */}',
        "```",
        "```yaml", // 11
        "a: [1", // 12
        "```",
        "```ts", // 14
        'import { diagnoseKey, noSuchExport } from "@/lib/diagnosis/diagnose.ts";', // 15
        'import { x } from "./lib/no-such-module.ts";', // 16
        "```",
      ].join("\n"),
    );
    expectProblem(problems, 2, "json does not parse");
    expectProblem(problems, 12, "yaml does not parse");
    expectProblem(problems, 15, "exports no noSuchExport");
    expectProblem(problems, 16, 'import "./lib/no-such-module.ts": no such file');
    assert.equal(problems.length, 4, problems.join("\n"));
  });

  it("in java and xml blocks that write the dedup log: its field names and values, and tags that close", () => {
    const problems = problemsOf(
      [
        "```java", // 1
        'DEDUP.info("dedup", kv("layer", "redis"), kv("decision", "skipped"));', // 2: no such decision
        'MDC.put("bizkey", order.id());', // 3: bizKey misspelt
        'MDC.put("bizKey", order.id());',
        "```",
        "```xml", // 6
        "<configuration>",
        "  <!-- the dedup log: <unclosed> in a comment is fine -->",
        "  <encoder",
        '      class="net.logstash.logback.encoder.LoggingEventCompositeJsonEncoder">',
        "    <includeMdcKeyName>queue_id</includeMdcKeyName>", // 11: queueId misspelt
        "  </appender>", // 12: closes <encoder>
        "</configuration>",
        "```",
        "```java", // 15: not about the dedup log: not checked
        'MDC.put("requestId", id);',
        "```",
      ].join("\n"),
    );
    expectProblem(problems, 2, 'decision "skipped" is not one of pass, hit, executed, failed, released');
    expectProblem(problems, 3, '"bizkey" is no dedup log v1 field');
    expectProblem(problems, 11, '"queue_id" is no dedup log v1 field');
    expectProblem(problems, 12, "</appender> closes <encoder> (line 9)");
    expectProblem(problems, 9, "<encoder> is never closed");
    assert.equal(problems.length, 5, problems.join("\n"));
  });

  it("in links, paths, variables and format tables", () => {
    // built here, so that this file does not count as code that reads it
    const unread = ["NOT", "READ", "ANYWHERE"].join("_");
    // Paths outside the repository, assembled so that this file does not cite them itself.
    const sibling = ["..", "..", "shared", "x.md"].join("/");
    const machine = ["", "work", "main"].join("/");
    const problems = problemsOf(
      [
        "# Title", // 1
        "",
        `See [a](no-such.md), [b](${sibling}), [c](api.md#no-such-heading) and [d](#title).`, // 3
        "Also `lib/no-such-folder/x.ts`, `GET /api/v1/nope`, `POST /api/v1/keys/{bizKey}`, `GET /v1/traces` and `POST /v1/logs`.", // 4
        `DUPSCOPE_NOT_A_VARIABLE is documented here, ${machine} is not ours.`, // 5
        "",
        "| format (`--format`) | reads |", // 7
        "|---|---|",
        "| `rocketmq-trace` | x |",
        "| `not-a-format` | y |", // 10
        "",
        "| variable | meaning |",
        "|---|---|",
        `| \`${unread}\` | x |`, // 14
        "| `DATABASE_URL` | y |",
      ].join("\n"),
    );
    expectProblem(problems, 3, "link no-such.md: docs/no-such.md does not exist");
    expectProblem(problems, 3, `link ${sibling}: outside the repository`);
    expectProblem(problems, 3, "link api.md#no-such-heading: docs/api.md has no heading");
    expectProblem(problems, 4, "lib/no-such-folder/x.ts: no such file");
    expectProblem(problems, 4, "GET /api/v1/nope: no route");
    expectProblem(problems, 4, "POST /api/v1/keys/{bizKey}: app/api/v1/keys/[bizKey]/route.ts exports no POST");
    // The OTLP receiver's path lies outside /api: routes anywhere under app/ are checked.
    expectProblem(problems, 4, "GET /v1/traces: app/v1/traces/route.ts exports no GET");
    expectProblem(problems, 4, "POST /v1/logs: no route");
    expectProblem(problems, 5, "DUPSCOPE_NOT_A_VARIABLE: no code");
    expectProblem(problems, 5, "cites a path outside the repository");
    expectProblem(problems, 7, "format table: misses");
    expectProblem(problems, 10, "format table: not-a-format is not a registered format");
    expectProblem(problems, 14, `${unread}: no code`);
    assert.ok(!problems.some((p) => p.includes("link #title")), problems.join("\n"));
  });

  it("runs `dupscope rabbitmq setup` and compares what it prints with its block", () => {
    const right = problemsOf(["```sh", "rabbitmq-plugins enable rabbitmq_event_exchange", "rabbitmqctl trace_on -p /", "dupscope rabbitmq setup --vhost / [--apply]", "```"].join("\n"));
    assert.deepEqual(right, []);
    const wrong = problemsOf(["```sh", "rabbitmq-plugins enable rabbitmq_shovel", "rabbitmqctl trace_on -p /", "dupscope rabbitmq setup --vhost /", "```"].join("\n"));
    expectProblem(wrong, 4, 'does not print "rabbitmq-plugins enable rabbitmq_shovel"');
  });
});

describe("docs:check helpers", () => {
  it("splits shell lines into commands of words", () => {
    assert.deepEqual(shellCommands(`A=1 npm run x -- --k 'a b' && curl "u v" | jq . # comment --x`), [["A=1", "npm", "run", "x", "--", "--k", "a b"], ["curl", "u v"], ["jq", "."]]);
    assert.deepEqual(shellCommands("dupscope explain <file|->"), [["dupscope", "explain", "<file|->"]]);
  });

  it("names headings as GitHub does", () => {
    const anchors = anchorsOf("# Two commands\n## Redis `SET key 1 NX EX ttl`\n## Metrics: `GET /api/metrics`\n## Two commands\n");
    assert.deepEqual([...anchors], ["two-commands", "redis-set-key-1-nx-ex-ttl", "metrics-get-apimetrics", "two-commands-1"]);
  });
});
