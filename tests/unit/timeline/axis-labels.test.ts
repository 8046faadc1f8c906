import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { labelBox, NARROWEST_TRACK_PX, placeAxisLabels } from "../../../components/timeline/axis-labels.ts";
import { formatDuration } from "../../../lib/format/duration.ts";
import { focusScale } from "../../../lib/timeline/scale.ts";

/** A key timeline's axis (issue 48): no label over another, over a break's "≈", or past the track's start. */

const HOUR = 3_600_000;

function axis(times: number[], locale: "en" | "zh-CN") {
  const scale = focusScale(times);
  const ticks = scale.ticks(6).map((t) => ({ text: `+${formatDuration(t.offsetMs, locale)}`, position: t.position, burst: t.burst }));
  return { scale, ticks, labels: placeAxisLabels(ticks, scale.breaks.map((b) => b.position)) };
}

describe("the key timeline's axis labels", () => {
  for (const locale of ["en", "zh-CN"] as const) {
    it(`a redelivery hours later: each burst labelled right of its break, nothing overlapping (${locale})`, () => {
      const { scale, ticks, labels } = axis([0, 40, 900, 1200, 4.75 * HOUR, 4.75 * HOUR + 300, 7.45 * HOUR, 7.45 * HOUR + 80], locale);
      assert.equal(scale.breaks.length, 2);
      const bursts = ticks.filter((t) => t.burst);
      assert.deepEqual(labels.filter((l) => l.burst).map((l) => [l.text, l.anchor]), bursts.map((t) => [t.text, "start"]), "every burst keeps its label");
      for (const [i, label] of labels.entries()) {
        const [l, r] = labelBox(label);
        assert.ok(l >= 0, `${label.text} starts inside the track`);
        if (label.row === 0) {
          for (const b of scale.breaks) {
            const x = b.position * NARROWEST_TRACK_PX;
            assert.ok(r <= x - 7 || l >= x + 7, `${label.text} clears the break at ${x.toFixed(0)} px`);
          }
        }
        for (const other of labels.slice(i + 1).filter((o) => o.row === label.row)) {
          const [a, z] = labelBox(other);
          assert.ok(r <= a || l >= z, `${label.text} and ${other.text} overlap`);
        }
      }
      assert.ok(labels[0]!.text === "+0 ms" || labels[0]!.text === "+0 毫秒", `the start is labelled: ${labels.map((l) => l.text).join(" ")}`);
    });
  }

  it("the first label is aligned inward rather than run over the lane labels' column", () => {
    const labels = placeAxisLabels([{ text: "+0 ms", position: 0.01 }, { text: "+500 ms", position: 0.5 }], []);
    assert.deepEqual(labels.map((l) => l.anchor), ["start", "middle"]);
  });

  it("a round tick with no room is left out, not drawn over its neighbour", () => {
    const labels = placeAxisLabels([{ text: "+0 ms", position: 0.1 }, { text: "+100 ms", position: 0.12 }, { text: "+200 ms", position: 0.5 }], []);
    assert.deepEqual(labels.map((l) => l.text), ["+0 ms", "+200 ms"]);
  });
});
