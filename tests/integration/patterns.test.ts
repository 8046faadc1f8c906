import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.ts";
import { startServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

/**
 * A patterns file as the CLI and the server read it: `explain` names the pattern that matched, and a file that does
 * not load stops the CLI (exit 2) and the server's start, each with the pattern's name and the reason.
 */

const dir = mkdtempSync(path.join(tmpdir(), "dupscope-patterns-"));
const write = (name: string, text: string) => {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
};

const GOOD = write(
  "acme.yaml",
  `patterns:
  - name: acme-shard-lost
    formats: [kafka-client-log]
    match: 'acme-consumer (?P<group>[\\w-]+) lost shard (?P<topic>[\\w.-]+)#(?P<partition>\\d+)'
    event: { kind: rebalance, action: lost }
`,
);
const BAD = write("bad.yaml", "patterns:\n  - name: shard-moved\n    match: '(?P<shard>\\d+)'\n    event: { kind: rebalance, action: revoke }\n");
const LOG = write("consumer.log", "2026-11-30 12:00:19.605 WARN  [main] com.acme.Consumer - acme-consumer points lost shard order-paid#3 to 10.0.0.9\n");

describe("a patterns file", () => {
  it("is read by dupscope explain, which names the pattern that matched", async () => {
    const result = await runCli(["explain", "--format", "kafka-client-log", "--patterns", GOOD, LOG]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^1 {2}rebalance\/lost {2}pattern:acme-shard-lost {2}ts=2026-11-30T12:00:19\.605Z group=points topic=order-paid queue=order-paid-3/m);
  });

  it("that does not load stops the CLI with the pattern's name and the reason (exit 2)", async () => {
    for (const command of [["explain", "--format", "kafka-client-log"], ["ingest", "--format", "kafka-client-log", "--server", "http://127.0.0.1:9"]]) {
      const result = await runCli([...command, "--patterns", BAD, LOG]);
      assert.equal(result.code, 2, `${command[0]}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, /bad\.yaml: pattern "shard-moved": unknown field "shard" in match/);
    }
  });

  it("that does not load stops the server's start, with the same reason", async () => {
    const created = await backends[0]!.create();
    try {
      await assert.rejects(startServer({ ...created.env, DUPSCOPE_PATTERNS: BAD }), /server exited with 1:[\s\S]*pattern \\?"shard-moved\\?": unknown field/);
    } finally {
      await created.dispose();
    }
  });
});
