import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parse, parseEventLine } from "./parse.ts";

const testdata = path.join(import.meta.dirname, "testdata");
const ctx = { source: "events:testdata/order-story.ndjson" };

describe("events collector", () => {
  it("parses the order story into the golden events, reporting the bad line", () => {
    const result = parse(readFileSync(path.join(testdata, "order-story.ndjson"), "utf8"), ctx);
    const golden = path.join(testdata, "order-story.golden.json");
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(golden, `${JSON.stringify(result, null, 2)}\n`);
    assert.deepEqual(result, JSON.parse(readFileSync(golden, "utf8")));
    assert.equal(result.events.length, 6);
    assert.deepEqual(result.issues.map((i) => [i.line, i.code]), [[7, "invalid_field"]]);
  });

  it("stamps the input's name on lines without a source and keeps the ones that have one", () => {
    const lines = readFileSync(path.join(testdata, "order-story.ndjson"), "utf8").split("\n");
    assert.equal(parseEventLine(lines[0]!, 1, ctx).events[0]!.source, ctx.source);
    assert.equal(parseEventLine(lines[3]!, 4, ctx).events[0]!.source, "rocketmq-client-log:/var/log/rocketmq/rocketmq_client.log");
  });

  it("reports invalid JSON as malformed without throwing", () => {
    assert.equal(parseEventLine("{nope", 3, ctx).issue?.code, "malformed");
  });
});
