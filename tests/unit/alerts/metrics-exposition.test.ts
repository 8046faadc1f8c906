import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { storedRegistry } from "../../../lib/metrics/exposition.ts";

describe("metrics exposition from stored counters", () => {
  it("renders stored counters, a cumulative gap histogram, ingest totals by known format and the lag", async () => {
    const now = Date.UTC(2026, 10, 30, 12);
    const text = await storedRegistry(
      {
        counters: [
          { name: "duplicates", labels: { group: "g", topic: "t", cause: "rebalance", outcome: "caught" }, value: 3 },
          { name: "leaks", labels: { group: "g", topic: "", defect: "marker_expired" }, value: 1 },
          { name: "gap_bucket", labels: { cause: "rebalance", le: "1" }, value: 2 },
          { name: "gap_bucket", labels: { cause: "rebalance", le: "+Inf" }, value: 1 },
          { name: "gap_ms_sum", labels: { cause: "rebalance" }, value: 90_500 },
          { name: "ingest_events", labels: { format: "dedup-log", result: "rejected" }, value: 4 },
        ],
        formats: [
          { format: "dedup-log", events: 10, maxTs: now - 30_000 },
          { format: "events", events: 5, maxTs: now - 1000 },
          { format: "made-up", events: 2, maxTs: now - 500 },
        ],
        diagnosis: { ready: 1200, settling: 300, unfolded: 45, oldestSince: now - 2500 },
      },
      now,
    ).metrics();
    const line = (prefix: string) => text.split("\n").find((l) => l.startsWith(prefix));
    assert.equal(line(`dupscope_duplicates_total{`), `dupscope_duplicates_total{group="g",topic="t",cause="rebalance",outcome="caught"} 3`);
    assert.equal(line(`dupscope_leaks_total{`), `dupscope_leaks_total{group="g",topic="",defect="marker_expired"} 1`);
    assert.equal(line(`dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="0.5"}`), `dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="0.5"} 0`);
    assert.equal(line(`dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="1"}`), `dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="1"} 2`);
    assert.equal(line(`dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="21600"}`), `dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="21600"} 2`);
    assert.equal(line(`dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="+Inf"}`), `dupscope_duplicate_gap_seconds_bucket{cause="rebalance",le="+Inf"} 3`);
    assert.equal(line(`dupscope_duplicate_gap_seconds_sum`), `dupscope_duplicate_gap_seconds_sum{cause="rebalance"} 90.5`);
    assert.equal(line(`dupscope_duplicate_gap_seconds_count`), `dupscope_duplicate_gap_seconds_count{cause="rebalance"} 3`);
    assert.match(text, /^# TYPE dupscope_duplicate_gap_seconds histogram$/m);
    assert.equal(line(`dupscope_ingest_events_total{format="dedup-log",result="accepted"}`), `dupscope_ingest_events_total{format="dedup-log",result="accepted"} 10`);
    assert.equal(line(`dupscope_ingest_events_total{format="events",result="accepted"}`), `dupscope_ingest_events_total{format="events",result="accepted"} 7`, "an unknown format prefix counts as normalized events");
    assert.equal(line(`dupscope_ingest_events_total{format="dedup-log",result="rejected"}`), `dupscope_ingest_events_total{format="dedup-log",result="rejected"} 4`);
    assert.equal(line(`dupscope_ingest_lag_seconds{format="dedup-log"}`), `dupscope_ingest_lag_seconds{format="dedup-log"} 30`);
    assert.equal(line(`dupscope_ingest_lag_seconds{format="events"}`), `dupscope_ingest_lag_seconds{format="events"} 0.5`);
    assert.equal(line(`dupscope_diagnosis_backlog_keys{state="ready"}`), `dupscope_diagnosis_backlog_keys{state="ready"} 1200`);
    assert.equal(line(`dupscope_diagnosis_backlog_keys{state="settling"}`), `dupscope_diagnosis_backlog_keys{state="settling"} 300`);
    assert.equal(line(`dupscope_diagnosis_backlog_keys{state="unfolded"}`), `dupscope_diagnosis_backlog_keys{state="unfolded"} 45`);
    assert.equal(line(`dupscope_diagnosis_wait_seconds`), `dupscope_diagnosis_wait_seconds 2.5`);
  });

  it("says the diagnosis waits for nothing when nothing is queued", async () => {
    const now = Date.UTC(2026, 10, 30, 12);
    const text = await storedRegistry({ counters: [], formats: [], diagnosis: { ready: 0, settling: 0, unfolded: 0, oldestSince: null } }, now).metrics();
    assert.match(text, /^dupscope_diagnosis_wait_seconds 0$/m);
    assert.match(text, /^dupscope_diagnosis_backlog_keys\{state="ready"\} 0$/m);
  });
});
