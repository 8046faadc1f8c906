import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findFormat } from "../../collectors/registry.ts";
import { parseLines } from "../../collectors/types.ts";
import { conditionSchema } from "../../lib/alerts/conditions.ts";
import { measure } from "../../lib/alerts/measure.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { runSimulation } from "../../lib/simulator/run.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { findings } from "../../lib/views/findings.ts";
import { groupPage } from "../../lib/views/groups.ts";
import { backends, useFreshStore } from "../helpers/stores.ts";

/**
 * A group-wide incident end to end: the simulator's operator reset (resetOffsetByTime while cg_order_paid runs) in
 * its real files, through the collectors into the store and the diagnosis worker; the keys it made be consumed again
 * come back as one incident of the group in /api/v1/findings' read model and on the group page, and an alert rule on
 * the cause fires for exactly those keys.
 */

const sim = runSimulation({ scenario: "offset_rollback", keys: 48, seed: 11 });
const events: NormalizedEvent[] = sim.manifest.files.flatMap((f) => {
  const file = sim.files.find((x) => x.path === f.path)!;
  const parsed = parseLines(file.text, findFormat(f.format)!.open({ source: `${f.format}:${f.path}`, ...(f.instance === undefined ? {} : { instance: f.instance }) }));
  assert.deepEqual(parsed.issues, [], f.path);
  return parsed.events;
});
const rolledBack = new Set(sim.truth.duplicates.filter((d) => d.cause === "offset_rollback").map((d) => d.bizKey));
const from = Math.min(...events.map((e) => e.ts));
const to = Math.max(...events.map((e) => e.ts)) + 60_000;

for (const backend of backends) {
  describe(`group-wide incidents on ${backend.name}`, () => {
    const store = useFreshStore(backend);

    it("an offset reset is one incident with the keys it explains, and a cause_count rule fires for them", async () => {
      assert.ok(rolledBack.size >= 40, `${rolledBack.size} keys rolled back`);
      await insertEvents(store().driver, events);
      await drainQueue(store().driver);

      const found = await findings(store().driver, { from, to, group: "cg_order_paid" });
      const incidents = found.groups.flatMap((g) => g.episodes);
      const resets = new Set(events.filter((e) => e.detail.action === "offset_reset" && e.detail.stage === "started").map((e) => e.id));
      assert.ok(incidents.length >= 1 && incidents.every((i) => i.cause === "offset_rollback" && resets.has(i.eventId)), JSON.stringify(incidents.map((i) => i.eventId)));
      const explained = new Set(incidents.flatMap((i) => i.sampleKeys));
      assert.deepEqual([...explained].sort(), [...rolledBack].sort(), "every rolled-back key, and only those, under an incident");
      assert.equal(incidents.reduce((n, i) => n + i.keys, 0), rolledBack.size);
      for (const i of incidents) assert.ok(i.queues.length > 0 && i.queues.every((q) => q.fromOffset !== null && q.toOffset !== null && q.fromOffset <= q.toOffset), JSON.stringify(i.queues));

      const page = await groupPage(store().driver, "cg_order_paid", { range: "custom", from, to, bucketMs: 60_000, group: "cg_order_paid", topic: null, cause: null }, "zh-CN");
      assert.deepEqual(page.incidents.map((i) => i.eventId), incidents.map((i) => i.eventId));

      const rule = conditionSchema.parse({ kind: "cause_count", cause: "offset_rollback", threshold: 10, windowSeconds: Math.ceil((to - from) / 1000) });
      const [measured] = await measure(store().driver, rule, to, to, ["group"]);
      assert.deepEqual(measured?.labels, { group: "cg_order_paid" });
      assert.equal(measured?.active, true);
      assert.equal(measured?.value, sim.truth.duplicates.filter((d) => d.cause === "offset_rollback").length);
      assert.ok(measured!.keys.length > 0 && measured!.keys.every((k) => rolledBack.has(k)), "the alert names keys of the incident");
    });
  });
}
