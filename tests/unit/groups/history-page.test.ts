import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { historyPage, pageOfEpisode, type RebalanceEpisode } from "../../../lib/groups/rebalance-history.ts";

/** Episodes oldest first, as rebalanceHistory returns them, started 1 … n. */
const episodes = (n: number): RebalanceEpisode[] => Array.from({ length: n }, (_, i) => ({ start: i + 1, end: i + 1, instances: [], moves: [], lines: 1 }));
const starts = (page: { episodes: RebalanceEpisode[] }) => page.episodes.map((e) => e.start);

describe("rebalance history pages", () => {
  it("list the newest episodes first and say which of how many they are", () => {
    const page = historyPage(episodes(45), 1, 20);
    assert.deepEqual(starts(page), Array.from({ length: 20 }, (_, i) => 45 - i));
    assert.deepEqual([page.page, page.pages, page.first, page.last, page.total], [1, 3, 1, 20, 45]);
  });

  it("reach the oldest episode on the last page, none left out", () => {
    const all = [1, 2, 3].flatMap((p) => starts(historyPage(episodes(45), p, 20)));
    assert.deepEqual(all.sort((a, b) => a - b), Array.from({ length: 45 }, (_, i) => i + 1));
    const last = historyPage(episodes(45), 3, 20);
    assert.deepEqual([last.first, last.last, starts(last)], [41, 45, [5, 4, 3, 2, 1]]);
  });

  it("show the nearest page for a page number out of range or not a number", () => {
    assert.equal(historyPage(episodes(45), 9, 20).page, 3);
    assert.equal(historyPage(episodes(45), 0, 20).page, 1);
    assert.equal(historyPage(episodes(45), Number.NaN, 20).page, 1);
  });

  it("have one empty page when there was no rebalance", () => {
    assert.deepEqual(historyPage([], 1, 20), { episodes: [], page: 1, pages: 1, first: 0, last: 0, total: 0 });
  });
});

describe("the history page of an episode", () => {
  it("is the page that lists it, so a mark on the lanes reaches its entry", () => {
    const all = episodes(45);
    for (const e of all) {
      const page = pageOfEpisode(all, e.start, 20);
      assert.ok(starts(historyPage(all, page, 20)).includes(e.start), `episode ${e.start} on page ${page}`);
    }
    assert.deepEqual([pageOfEpisode(all, 45, 20), pageOfEpisode(all, 26, 20), pageOfEpisode(all, 25, 20), pageOfEpisode(all, 1, 20)], [1, 1, 2, 3]);
    assert.equal(pageOfEpisode(all, 999, 20), 1);
  });
});
