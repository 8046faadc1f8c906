import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { TextSlab } from "../../../lib/store/text-slab.ts";

/** Lines of COPY text as collectors make them: ASCII mostly, CJK and emoji in details, now and then one long line. */
const aLine = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom("订单-42\t支付成功\n", "🎉\u00e9\n", "\\N\t{}\n") },
  { weight: 1, arbitrary: fc.string({ minLength: 100, maxLength: 400 }) },
);

describe("text written into slabs", () => {
  it("hands out each take's text exactly, in order, whatever the slab size", () => {
    fc.assert(
      fc.property(fc.array(fc.array(aLine, { maxLength: 12 }), { maxLength: 12 }), fc.integer({ min: 16, max: 40_000 }), (takes, size) => {
        const slab = new TextSlab(size);
        for (const lines of takes) {
          for (const line of lines) slab.write(line);
          const taken = slab.take();
          assert.equal(Buffer.concat(taken).toString("utf8"), lines.join(""));
          assert.ok(taken.every((b) => b.length > 0), "no empty slice");
        }
      }),
    );
  });

  it("keeps a slice handed out unchanged while the slab goes on filling", () => {
    const slab = new TextSlab(64);
    slab.write("first\n");
    const [first] = slab.take();
    for (let i = 0; i < 50; i++) slab.write(`row ${i}\n`);
    slab.take();
    assert.equal(first!.toString(), "first\n");
  });

  it("gives a batch of a few lines a small buffer, not a whole slab", () => {
    const slab = new TextSlab();
    slab.write("one row\n");
    const [taken] = slab.take();
    assert.ok(taken!.buffer.byteLength <= 16 * 1024, `${taken!.buffer.byteLength} bytes behind one row`);
  });

  it("takes nothing when nothing was written", () => {
    const slab = new TextSlab();
    assert.deepEqual(slab.take(), []);
    slab.write("");
    assert.deepEqual(slab.take(), []);
  });
});
