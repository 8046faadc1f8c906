import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { FORMATS } from "../../../collectors/registry.ts";
import { sniffFormat } from "../../../collectors/sniff.ts";
import { loadFieldCorpus } from "../../helpers/field-corpus.ts";

const root = path.join(import.meta.dirname, "..", "..", "..");

describe("--format auto", () => {
  for (const format of FORMATS) {
    it(`tells ${format.name} from its own fixtures`, () => {
      const testdata = path.join(root, format.folder, "testdata");
      const fixtures = readdirSync(testdata).filter((name) => /\.(log|ndjson)$/.test(name) && !name.startsWith("bad-"));
      assert.ok(fixtures.length > 0);
      for (const fixture of fixtures) {
        const lines = readFileSync(path.join(testdata, fixture), "utf8").split("\n");
        assert.equal(sniffFormat(lines)?.format.name, format.name, fixture);
      }
    });
  }

  it("tells the format of each family of real lines in the field corpus", () => {
    const byFormat = new Map<string, string[]>();
    for (const field of loadFieldCorpus()) {
      if ("negative" in field.expect || "irrelevant" in field.expect || field.format === "rocketmq-trace") continue;
      byFormat.set(field.format, [...(byFormat.get(field.format) ?? []), ...field.text.split("\n")]);
    }
    for (const [format, lines] of byFormat) assert.equal(sniffFormat(lines)?.format.name, format);
  });

  it("does not guess when no format finds a record it knows", () => {
    assert.equal(sniffFormat(["hello", "2026-11-30 12:00:00 INFO main - started in 3 s", "{\"a\": 1}"]), undefined);
  });
});
