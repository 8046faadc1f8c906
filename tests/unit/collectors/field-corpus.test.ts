import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateFieldCorpus } from "../../helpers/field-evaluate.ts";

/** The field corpus's figures as `npm run eval:field` prints them, held to the thresholds its issue set. */
describe("field corpus", () => {
  const result = evaluateFieldCorpus();

  it("has at least 200 real lines, each with a source", () => {
    assert.ok(result.lines >= 200, `${result.lines} lines`);
    assert.ok(result.sources >= 50, `${result.sources} sources`);
  });

  it("recognises at least 97% of the relevant lines with at least 95% of their fields right", () => {
    const { recognized, relevant, fieldsRight, fieldsChecked } = result.total;
    assert.ok(recognized / relevant >= 0.97, `${recognized}/${relevant} recognised:\n${result.failures.join("\n")}`);
    assert.ok(fieldsRight / fieldsChecked >= 0.95, `${fieldsRight}/${fieldsChecked} fields right`);
  });

  it("turns no negative control (a pause, an offset commit, a manual assign) into a rebalance", () => {
    assert.equal(result.negativesAsRebalance, 0, result.failures.filter((f) => f.includes("negative control")).join("\n"));
  });
});
