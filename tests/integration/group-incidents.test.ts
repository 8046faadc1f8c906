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
 * Group-wide incidents end to end: the simulator's operator reset (resetOffsetByTime while cg_order_paid runs) and
 * its two processes sharing one clientId, in their real files, through the collectors into the store and the
 * diagnosis worker; the keys each made be consumed twice come back as incidents of the group in /api/v1/findings'
 * read model and on the group page, and an alert rule on the cause fires for exactly those keys.
 */

/** A scenario's files read by the collectors, its truth's keys of the cause, and the lines an incident may cite. */
function story(scenario: "offset_rollback" | "shared_client_id", keys: number, seed: number) {
  const sim = runSimulation({ scenario, keys, seed });
  const events: NormalizedEvent[] = sim.manifest.files.flatMap((f) => {
    const file = sim.files.find((x) => x.path === f.path)!;
    const parsed = parseLines(file.text, findFormat(f.format)!.open({ source: `${f.format}:${f.path}`, ...(f.instance === undefined ? {} : { instance: f.instance }) }));
    assert.deepEqual(parsed.issues, [], f.path);
    return parsed.events;
  });
  const truth = sim.truth.duplicates.filter((d) => d.cause === scenario);
  const anchors = new Set(events.filter((e) => (scenario === "offset_rollback" ? e.detail.action === "offset_reset" && e.detail.stage === "started" : e.detail.action === "connected")).map((e) => e.id));
  return { scenario, events, truth, keys: new Set(truth.map((d) => d.bizKey)), anchors, from: Math.min(...events.map((e) => e.ts)), to: Math.max(...events.map((e) => e.ts)) + 60_000 };
}

const stories = [story("offset_rollback", 48, 11), story("shared_client_id", 300, 7)];

for (const backend of backends) {
  for (const s of stories) {
    describe(`group-wide incidents on ${backend.name}: ${s.scenario}`, () => {
      const store = useFreshStore(backend);

      it("one incident per cited line with exactly the keys it explains, and a cause_count rule fires for them", async () => {
        assert.ok(s.keys.size >= 15, `${s.keys.size} keys of ${s.scenario}`);
        await insertEvents(store().driver, s.events);
        await drainQueue(store().driver);

        const found = await findings(store().driver, { from: s.from, to: s.to, group: "cg_order_paid" });
        const incidents = found.groups.flatMap((g) => g.episodes).filter((i) => i.cause === s.scenario);
        assert.ok(incidents.length >= 1 && incidents.every((i) => s.anchors.has(i.eventId)), JSON.stringify(incidents.map((i) => i.eventId)));
        const explained = new Set(incidents.flatMap((i) => i.sampleKeys));
        assert.deepEqual([...explained].sort(), [...s.keys].sort(), "every key of the cause, and only those, under an incident");
        assert.equal(incidents.reduce((n, i) => n + i.keys, 0), s.keys.size);
        for (const i of incidents) assert.ok(i.queues.length > 0 && i.queues.every((q) => q.fromOffset === null || q.toOffset === null || q.fromOffset <= q.toOffset), JSON.stringify(i.queues));

        const page = await groupPage(store().driver, "cg_order_paid", { range: "custom", from: s.from, to: s.to, bucketMs: 60_000, group: "cg_order_paid", topic: null, cause: null }, "zh-CN");
        assert.deepEqual(page.incidents.map((i) => i.eventId), incidents.map((i) => i.eventId));

        const rule = conditionSchema.parse({ kind: "cause_count", cause: s.scenario, threshold: 10, windowSeconds: Math.ceil((s.to - s.from) / 1000) });
        const [measured] = await measure(store().driver, rule, s.to, s.to, ["group"]);
        assert.deepEqual(measured?.labels, { group: "cg_order_paid" });
        assert.equal(measured?.active, true);
        assert.equal(measured?.value, s.truth.length);
        assert.ok(measured!.keys.length > 0 && measured!.keys.every((k) => s.keys.has(k)), "the alert names keys of the incident");
      });
    });
  }
}
