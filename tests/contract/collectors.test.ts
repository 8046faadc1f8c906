import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { FORMATS } from "../../collectors/registry.ts";
import { parseLines } from "../../collectors/types.ts";
import { validateEvent } from "../../lib/events/validate.ts";

/**
 * The contract every collector keeps: a README, real-format fixtures with goldens beside them, and output that the
 * store accepts as it is. The CLI's direct-to-PostgreSQL path does not re-validate parser output, so this is what
 * stands between a parser bug and a bad row.
 */

const root = path.join(import.meta.dirname, "..", "..");
const isFixture = (name: string) => !/\.(json|md|mjs|ts)$/.test(name);

for (const format of FORMATS) {
  describe(`collector ${format.name}`, () => {
    const folder = path.join(root, format.folder);
    const testdata = path.join(folder, "testdata");
    const fixtures = existsSync(testdata) ? readdirSync(testdata).filter(isFixture) : [];

    it("has a README and fixtures, each with a golden file", () => {
      assert.ok(existsSync(path.join(folder, "README.md")), "README.md");
      assert.ok(fixtures.length > 0, "at least one fixture in testdata/");
      for (const fixture of fixtures) {
        const stem = fixture.replace(/\.(log|ndjson)$/, "");
        assert.ok(existsSync(path.join(testdata, `${stem}.golden.json`)), `${fixture} has ${stem}.golden.json`);
      }
    });

    it("turns its fixtures into events the store accepts unchanged, with unique ids", () => {
      let total = 0;
      for (const fixture of fixtures) {
        const text = readFileSync(path.join(testdata, fixture), "utf8");
        const ctx = { source: `${format.name}:testdata/${fixture}`, instance: "10.0.0.5@4121" };
        const result = parseLines(text, format.open(ctx));
        const ids = new Set<string>();
        for (const event of result.events) {
          const checked = validateEvent(event);
          assert.ok(checked.ok, `${fixture}: ${checked.ok ? "" : checked.reason} in ${JSON.stringify(event)}`);
          assert.deepEqual(checked.event, event, `${fixture}: the schema would change ${event.id}`);
          assert.ok(!ids.has(event.id), `${fixture}: duplicate id ${event.id}`);
          ids.add(event.id);
        }
        total += result.events.length;
      }
      assert.ok(total > 0, "the fixtures yield events");
    });
  });
}
