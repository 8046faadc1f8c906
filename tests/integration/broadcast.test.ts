import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findFormat } from "../../collectors/registry.ts";
import { parseLines } from "../../collectors/types.ts";
import { drainQueue } from "../../lib/diagnosis-queue/queue.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { runSimulation } from "../../lib/simulator/run.ts";
import { insertEvents } from "../../lib/store/events-repo.ts";
import { keyReport } from "../../lib/views/key-report.ts";
import { backends, useFreshStore } from "../helpers/stores.ts";

/**
 * A BROADCASTING group through the store: the simulator's cg_config_cache (every instance consumes every config
 * change) beside the CLUSTERING cg_config_audit on the same topic. The key API names the second consumption
 * `broadcast_consumption`, reading the group's model from its members over time (group_members) even when the
 * connect lines are far outside the key's minutes; the verdicts table, which the overview, the duplicates list and
 * alerts read, holds none of them, because none leaked.
 */

const sim = runSimulation({ scenario: "broadcast_consumption", keys: 40, seed: 3 });
const events: NormalizedEvent[] = sim.manifest.files.flatMap((f) => {
  const file = sim.files.find((x) => x.path === f.path)!;
  const parsed = parseLines(file.text, findFormat(f.format)!.open({ source: `${f.format}:${f.path}`, ...(f.instance === undefined ? {} : { instance: f.instance }) }));
  assert.deepEqual(parsed.issues, [], f.path);
  return parsed.events;
});
const models = events.filter((e) => e.group === "cg_config_cache" && e.detail.messageModel === "BROADCASTING");
const broadcast = sim.truth.duplicates.filter((d) => d.cause === "broadcast_consumption");
/** A key consumed well after the consumers connected: its minutes hold no model line. */
const late = broadcast.find((d) => d.firstAt - Math.max(...models.map((m) => m.ts)) > 5 * 60_000);

for (const backend of backends) {
  describe(`a broadcasting group on ${backend.name}`, () => {
    const store = useFreshStore(backend);

    it("is named by design on the key page, from a model line far outside the key's window, and stays out of the verdicts", async () => {
      assert.ok(models.length > 0, "the broker logged the group's BROADCASTING connections");
      assert.ok(late !== undefined, "a key consumed more than 5 min after the connections");
      await insertEvents(store().driver, events);
      await drainQueue(store().driver);

      const report = await keyReport(store().driver, late.bizKey);
      const verdicts = report!.duplicates.filter((v) => v.group === "cg_config_cache");
      assert.deepEqual(verdicts.map((v) => [v.cause, v.outcome]), [["broadcast_consumption", "unknown"]]);
      assert.match(report!.duplicates.find((v) => v.group === "cg_config_cache")!.summary, /broadcast consumption \(by design\)/);
      const cited = report!.duplicates.find((v) => v.group === "cg_config_cache")!.evidence.find((e) => e.code === "broadcasting_group")!;
      assert.doesNotMatch(cited.text, /expired/, "the connect line is still stored");
      assert.ok(models.some((m) => m.instance === cited.values.instance), "the evidence names a member that connected BROADCASTING");
      assert.ok(report!.duplicates.every((v) => v.group !== "cg_config_audit"), "the clustering group beside it has no duplicate");

      const stored = await store().driver.query<{ n: string }>(`SELECT count(*)::text AS n FROM verdicts WHERE group_name = 'cg_config_cache'`);
      assert.equal(stored[0]!.n, "0");
      const keys = await store().driver.query<{ n: string }>(`SELECT count(*)::text AS n FROM key_diagnoses WHERE duplicates > 0`);
      assert.equal(keys[0]!.n, "0", "no key counts a duplicate");
    });
  });
}
