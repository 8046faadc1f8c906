import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { bodyFormatFor, MalformedBodyError, splitJsonArray, splitNdjson, UnsupportedMediaTypeError } from "../../../lib/api/ingest-body.ts";
import { validateEvent } from "../../../lib/events/validate.ts";
import { orderStory, toNdjson } from "../../helpers/events.ts";

describe("ingest body splitting", () => {
  it("maps content types to formats and explains a wrong one", () => {
    assert.equal(bodyFormatFor("application/x-ndjson; charset=utf-8"), "ndjson");
    assert.equal(bodyFormatFor("application/json"), "json-array");
    assert.throws(() => bodyFormatFor("application/x-www-form-urlencoded"), UnsupportedMediaTypeError);
    assert.throws(() => bodyFormatFor(null), /content-type is missing/);
  });

  it("numbers NDJSON lines from 1, skips blank lines and CRLF endings, rejects bad JSON per line", () => {
    const text = '{"a":1}\r\n\n{oops\n{"b":2}\n';
    const { records, rejected } = splitNdjson(text);
    assert.deepEqual(records, [
      { line: 1, value: { a: 1 } },
      { line: 4, value: { b: 2 } },
    ]);
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0]!.line, 3);
    assert.match(rejected[0]!.reason, /^not valid JSON/);
  });

  it("refuses a JSON body that is not an array as a whole", () => {
    assert.throws(() => splitJsonArray('{"kind":"publish"}'), MalformedBodyError);
    assert.throws(() => splitJsonArray("[{"), /body is not valid JSON/);
    assert.deepEqual(splitJsonArray("[1,2]").records.map((r) => r.line), [1, 2]);
  });

  it("never throws on arbitrary NDJSON text and accounts for every non-blank line", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.json()), { maxLength: 30 }), (lines) => {
        const text = lines.join("\n");
        const { records, rejected } = splitNdjson(text);
        const nonBlank = text.split("\n").filter((l) => l.replace(/\r$/, "").trim() !== "").length;
        assert.equal(records.length + rejected.length, nonBlank);
      }),
    );
  });

  it("round-trips valid events: serialized, split and validated they come back equal", () => {
    const story = orderStory();
    fc.assert(
      fc.property(fc.shuffledSubarray(story, { minLength: 1 }), (subset) => {
        const { records, rejected } = splitNdjson(toNdjson(subset));
        assert.equal(rejected.length, 0);
        const events = records.map((r) => validateEvent(r.value));
        events.forEach((result, i) => {
          assert.ok(result.ok);
          assert.equal(result.event.kind, subset[i]!.kind);
          assert.equal(result.event.ts, subset[i]!.ts);
          assert.equal(result.event.instance, subset[i]!.instance ?? null);
        });
      }),
    );
  });
});
