import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { formatExplanation, runExplain } from "../../../cli/explain.ts";
import { createDedupLog } from "../../../packages/dedup/src/index.ts";
import { manualClock } from "../../helpers/dedup-emitter.ts";

/**
 * `dupscope explain` on a dedup log: each line's business key, group, instance, layer and decision, in the words
 * docs/ingest.md shows.
 */

const ROOT = path.join(import.meta.dirname, "..", "..", "..");
const FIXTURE = "collectors/dedup-log/testdata/java-emitter.dedup.log";

describe("dupscope explain on a dedup log", () => {
  it("prints what docs/ingest.md shows for the Java emitter's sample", async () => {
    const doc = readFileSync(path.join(ROOT, "docs", "ingest.md"), "utf8");
    const block = doc.split("\n```\n").find((b) => b.startsWith(`$ npx dupscope explain ${FIXTURE}\n`));
    assert.ok(block, `docs/ingest.md has no block for ${FIXTURE}`);
    const shown = block.split("\n").slice(1).filter((row) => row !== "…");
    const rows = formatExplanation(await runExplain(path.join(ROOT, FIXTURE), { format: "auto", maxLines: 100_000 }));
    assert.deepEqual(
      shown.map((row) => rows.includes(row)),
      shown.map(() => true),
      `rows the docs show and explain does not print:\n${shown.filter((row) => !rows.includes(row)).join("\n")}`,
    );
  });

  it("names each line's key, group, instance, layer and decision, in text and in JSON", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dupscope-explain-dedup-"));
    try {
      const clock = manualClock();
      const lines: string[] = [];
      const log = createDedupLog({ group: "invoice.issue", broker: "rabbitmq", instance: "10.8.3.17:47946 -> 10.8.0.2:5672@1", clock: clock.now, write: (l) => lines.push(l) });
      const d = log.delivery({ bizKey: "ORD-1", msgId: "msg-5f1c", queueId: "invoice.issue" });
      d.check("state", true, { dedupKey: "invoice_status:UNISSUED->ISSUED" });
      d.failed(new Error("ledger down"));
      log.delivery({ bizKey: "ORD-1", msgId: "msg-5f1c", retryTimes: 1 }).check("state", false);
      const file = path.join(dir, "dedup.log");
      writeFileSync(file, `${lines.join("\n")}\n`);

      const explanation = await runExplain(file, { format: "dedup-log", maxLines: 100 });
      assert.deepEqual(
        explanation.lines.map((l) => l.events!.map((e) => [e.bizKey, e.group, e.instance, e.layer, e.decision, e.dedupKey ?? null])[0]),
        [
          ["ORD-1", "invoice.issue", "10.8.3.17:47946 -> 10.8.0.2:5672@1", "state", "pass", "invoice_status:UNISSUED->ISSUED"],
          ["ORD-1", "invoice.issue", "10.8.3.17:47946 -> 10.8.0.2:5672@1", "state", "failed", null],
          ["ORD-1", "invoice.issue", "10.8.3.17:47946 -> 10.8.0.2:5672@1", "state", "hit", null],
        ],
      );
      const rows = formatExplanation(explanation);
      assert.match(rows[1]!, /^1 {2}dedup\/pass {4}ts=\S+ key=ORD-1 group=invoice\.issue queue=invoice\.issue instance=10\.8\.3\.17:47946 -> 10\.8\.0\.2:5672@1 msgId=msg-5f1c layer=state dedupKey=invoice_status:UNISSUED->ISSUED$/);
      assert.match(rows[2]!, /^2 {2}business_effect\/failed {4}.* key=ORD-1 .* layer=state$/);
      assert.match(rows[3]!, /^3 {2}dedup\/hit {4}.* key=ORD-1 .* layer=state$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
