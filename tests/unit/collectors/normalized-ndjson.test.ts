import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse, parseEventLine } from "../../../collectors/normalized-ndjson/parse.ts";
import { collectorTestdata } from "../../helpers/golden.ts";

const testdata = collectorTestdata("normalized-ndjson");
const ctx = { source: "events:testdata/order-story.ndjson" };

describe("events collector", () => {
  it("parses the order story into the golden events, reporting the bad line", () => {
    const result = parse(testdata.read("order-story.ndjson"), ctx);
    testdata.assertGolden("order-story.ndjson", result);
    assert.equal(result.events.length, 6);
    assert.deepEqual(result.issues.map((i) => [i.line, i.code]), [[7, "invalid_field"]]);
  });

  it("stamps the input's name on lines without a source and keeps the ones that have one", () => {
    const lines = testdata.read("order-story.ndjson").split("\n");
    assert.equal(parseEventLine(lines[0]!, 1, ctx).events[0]!.source, ctx.source);
    assert.equal(parseEventLine(lines[3]!, 4, ctx).events[0]!.source, "rocketmq-client-log:/var/log/rocketmq/rocketmq_client.log");
  });

  it("reports invalid JSON as malformed without throwing", () => {
    assert.equal(parseEventLine("{nope", 3, ctx).issue?.code, "malformed");
  });
});
