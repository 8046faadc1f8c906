import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { FORMATS } from "../../collectors/registry.ts";
import { parseLines } from "../../collectors/types.ts";
import { FACTS, FactSet, type Fact } from "../../lib/events/facts.ts";
import { FORMAT_KINDS } from "../../lib/events/formats.ts";
import { READS } from "../../lib/diagnosis/sources.ts";
import { loadFieldCorpus } from "../helpers/field-corpus.ts";

/**
 * The one typed contract between collectors and diagnosis (lib/events/facts.ts): each format states only the facts
 * it declares, every fact is emitted by some format, and diagnosis has a reading of each (READS, which the compiler
 * also holds to exactly the facts). The formats' names and source kinds are one list (lib/events/formats.ts).
 */

const root = path.join(import.meta.dirname, "..", "..");
const ALL = new Set<string>(Object.entries(FACTS).flatMap(([kind, actions]) => actions.map((a) => `${kind}/${a}`)));
const isFixture = (name: string) => !/\.(json|md|mjs|ts)$/.test(name);

/** Every input the repository holds for a format: its testdata and the field corpus's cases of it. */
function inputs(format: string, folder: string): string[] {
  const testdata = path.join(root, folder, "testdata");
  const files = existsSync(testdata) ? readdirSync(testdata).filter(isFixture).map((n) => readFileSync(path.join(testdata, n), "utf8")) : [];
  const cases = loadFieldCorpus()
    .filter((c) => c.format === format)
    .map((c) => (format === "rocketmq-trace" ? JSON.stringify({ bornHost: "10.0.0.1:5000", body: c.text, storeTimestamp: Date.UTC(2026, 10, 30) }) : c.text));
  return [...files, ...cases];
}

describe("the facts collectors emit and diagnosis reads", () => {
  for (const format of FORMATS.filter((f) => f.facts !== "any")) {
    it(`${format.name} states only the facts it declares`, () => {
      const declared = new Set<string>(format.facts as readonly Fact[]);
      for (const text of inputs(format.name, format.folder)) {
        for (const e of parseLines(text, format.open({ source: "contract", instance: "10.0.0.5@1", inputTime: Date.UTC(2026, 10, 30), date: "2026-11-30" })).events) {
          if (e.kind !== "rebalance" && e.kind !== "instance_lifecycle") continue;
          if (typeof e.detail.action !== "string") continue;
          const fact = `${e.kind}/${e.detail.action}`;
          assert.ok(ALL.has(fact), `${format.name} emits ${fact}, which lib/events/facts.ts does not declare`);
          assert.ok(declared.has(fact), `${format.name} emits ${fact} but does not list it in collectors/registry.ts`);
        }
      }
    });
  }

  it("every fact is emitted by some format: diagnosis reads none that no collector writes", () => {
    const emitted = new Set(FORMATS.flatMap((f) => (f.facts === "any" ? [] : [...f.facts])));
    assert.deepEqual([...ALL].filter((f) => !emitted.has(f as Fact)), []);
  });

  it("diagnosis has a reading of every fact, and of nothing else", () => {
    assert.deepEqual(Object.keys(READS).sort(), [...ALL].sort());
    const lost = new FactSet(["rebalance/membership_lost"]);
    assert.ok(lost.states({ kind: "rebalance", detail: { action: "membership_lost" } }));
    assert.ok(!lost.states({ kind: "instance_lifecycle", detail: { action: "membership_lost" } }), "the kind is part of the fact");
  });

  it("the registry's formats and lib/events/formats.ts list the same names", () => {
    assert.deepEqual(FORMATS.map((f) => f.name).sort(), Object.keys(FORMAT_KINDS).sort());
  });
});
