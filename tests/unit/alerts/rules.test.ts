import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatIssues } from "../../../lib/events/validate.ts";
import { conditionSchema, describeCondition, summaryOf } from "../../../lib/alerts/conditions.ts";
import { alertName, promqlFor } from "../../../lib/alerts/prometheus-rules.ts";
import { ruleInputSchema } from "../../../lib/alerts/schema.ts";
import { conditionText, firingSummary } from "../../../lib/i18n/condition.ts";

const expr = (condition: unknown) => {
  const result = promqlFor(conditionSchema.parse(condition));
  return "expr" in result ? result.expr : `unsupported: ${result.unsupported}`;
};

describe("alert rule conditions", () => {
  it("validates every condition kind and refuses what a kind does not take", () => {
    assert.equal(conditionSchema.safeParse({ kind: "rebalances", threshold: 3, windowSeconds: 600 }).success, false, "rebalances need a group");
    assert.equal(conditionSchema.safeParse({ kind: "cause_count", cause: "gremlins", threshold: 1, windowSeconds: 600 }).success, false);
    assert.equal(conditionSchema.safeParse({ kind: "leaked_duplicates", threshold: 0, windowSeconds: 600, layer: "redis" }).success, false);
    assert.equal(conditionSchema.safeParse({ kind: "leaked_duplicates", threshold: 0, windowSeconds: 10 }).success, false, "windows start at a minute");
    assert.deepEqual(conditionSchema.parse({ kind: "dedup_miss_rate", group: "g", layer: "redis", thresholdPercent: 5, windowSeconds: 3600 }), {
      kind: "dedup_miss_rate", group: "g", layer: "redis", thresholdPercent: 5, minHits: 1, windowSeconds: 3600,
    });
  });

  it("refuses labels Prometheus would refuse or that dupscope sets itself", () => {
    const rule = (labels: Record<string, string>) =>
      ruleInputSchema.safeParse({ name: "r", condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 600 }, labels }).success;
    assert.equal(rule({ team: "pay" }), true);
    assert.equal(rule({ "team-name": "pay" }), false);
    assert.equal(rule({ severity: "low" }), false);
    assert.equal(rule({ __name__: "x" }), false);
    const refused = ruleInputSchema.safeParse({ name: "r", condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 600 }, labels: { "team-name": "pay" } });
    assert.equal(refused.success ? "" : formatIssues(refused.error), "labels.team-name: must be a Prometheus label name", "the reason, not just that the key is invalid");
  });

  it("describes conditions in words", () => {
    assert.equal(describeCondition(conditionSchema.parse({ kind: "cause_count", cause: "rebalance", group: "g", threshold: 5, windowSeconds: 900 })), "rebalance duplicates in group g > 5 in 15 min");
    assert.equal(
      describeCondition(conditionSchema.parse({ kind: "dedup_miss_rate", group: "g", layer: "redis", thresholdPercent: 5, windowSeconds: 3600 })),
      "redis miss rate in group g (hits by db/state of all hits from redis on) > 5% in 1 h",
    );
  });

  it("describes conditions in Chinese on the page, and in English as the notifications do", () => {
    const zh = (condition: unknown) => conditionText(conditionSchema.parse(condition), "zh-CN");
    const leak = conditionSchema.parse({ kind: "leaked_duplicates", group: "cg_pay", threshold: 0, windowSeconds: 7200 });
    assert.equal(conditionText(leak, "en"), describeCondition(leak));
    assert.equal(zh(leak), "2 小时内消费组 cg_pay 中泄漏的重复消费 > 0");
    assert.equal(zh({ kind: "duplicate_rate", group: "g", topic: "t", thresholdPercent: 1.5, windowSeconds: 600 }), "10 分钟内消费组 g、主题 t 中每 100 个业务键的重复消费 > 1.5%");
    assert.equal(zh({ kind: "cause_count", cause: "rebalance", threshold: 5, windowSeconds: 86400 }), "1 天内原因为“重平衡”的重复消费 > 5");
    assert.equal(
      zh({ kind: "dedup_miss_rate", group: "g", layer: "redis", thresholdPercent: 5, windowSeconds: 3600 }),
      "1 小时内消费组 g 中“Redis 标记”的漏拦率（从“Redis 标记”起各层的全部命中中，由“数据库唯一键”、“状态机”拦下的比例）> 5%",
    );
    assert.match(zh({ kind: "dedup_miss_rate", group: "g", layer: "state", thresholdPercent: 5, windowSeconds: 3600 }), /“状态机”的漏拦率（它已是最后一层，其后没有防重层）/);
    assert.equal(zh({ kind: "ingest_silent", source: "rocketmq-client-log:", silentSeconds: 90 }), "以“rocketmq-client-log:”开头的数据源已 1 分钟 30 秒没有事件");
  });

  it("words a firing in the reader's language from the condition it fired on, and keeps the old English summary otherwise", () => {
    const rate = conditionSchema.parse({ kind: "duplicate_rate", group: "g", thresholdPercent: 1.5, windowSeconds: 600 });
    const firing = { summary: summaryOf(rate, 2.345), condition: rate, value: 2.345 };
    assert.equal(firing.summary, "duplicates per 100 keys in group g > 1.5% in 10 min: now 2.35%");
    assert.equal(firingSummary(firing, "en"), firing.summary);
    assert.equal(firingSummary(firing, "zh-CN"), "10 分钟内消费组 g 中每 100 个业务键的重复消费 > 1.5%：当前 2.35%");
    assert.equal(firingSummary({ ...firing, condition: null }, "zh-CN"), firing.summary, "a firing recorded before conditions were kept");
    const silent = conditionSchema.parse({ kind: "ingest_silent", source: "dedup-log:", silentSeconds: 900 });
    assert.equal(summaryOf(silent, 1234.567), `no events from sources starting with "dedup-log:" for 15 min: now 20 min 34 s`, "a silence reads as a duration");
    assert.equal(firingSummary({ summary: "", condition: silent, value: 1234.567 }, "zh-CN"), "以“dedup-log:”开头的数据源已 15 分钟没有事件：当前 20 分钟 34 秒");
  });

  it("renders each kind as PromQL over /api/metrics, keeping one copy of each store-derived series however many servers are scraped", () => {
    assert.equal(expr({ kind: "leaked_duplicates", group: "g", threshold: 0, windowSeconds: 600 }), `sum(max by (group, topic, defect) (increase(dupscope_leaks_total{group="g"}[10m]))) > 0`);
    assert.equal(
      expr({ kind: "cause_count", cause: "ack_lost", topic: "t", threshold: 3, windowSeconds: 3600 }),
      `sum(max by (group, topic, cause, outcome) (increase(dupscope_duplicates_total{topic="t",cause="ack_lost"}[1h]))) > 3`,
    );
    assert.equal(expr({ kind: "rebalances", group: "g", threshold: 10, windowSeconds: 3600 }), `sum(max by (group, topic) (increase(dupscope_rebalances_total{group="g"}[1h]))) > 10`);
    assert.equal(
      expr({ kind: "duplicate_rate", group: "g", thresholdPercent: 1.5, minKeys: 100, windowSeconds: 600 }),
      `(sum(max by (group, topic, cause, outcome) (increase(dupscope_duplicates_total{group="g"}[10m]))) / sum(max by (group) (increase(dupscope_keys_total{group="g"}[10m])))) * 100 > 1.5 and sum(max by (group) (increase(dupscope_keys_total{group="g"}[10m]))) >= 100`,
    );
    assert.match(
      expr({ kind: "dedup_miss_rate", group: "g", layer: "redis", thresholdPercent: 5, windowSeconds: 3600 }),
      /^\(sum\(max by \(group, layer, decision\) \(increase\(dupscope_dedup_decisions_total\{group="g",decision="hit",layer=~"db\|state"\}\[1h\]\)\)\) \/ sum\(.*layer=~"redis\|db\|state".*\)\) \* 100 > 5 and /,
    );
    assert.equal(
      expr({ kind: "ingest_silent", source: "rocketmq-client-log:", silentSeconds: 600 }),
      `sum(increase(dupscope_ingest_events_total{format="rocketmq-client-log",result="accepted"}[10m])) == 0`,
    );
    assert.match(expr({ kind: "ingest_silent", source: "/var/log/x", silentSeconds: 600 }), /^unsupported: .*by format, not by source/);
    assert.match(expr({ kind: "dedup_miss_rate", group: "g", layer: "state", thresholdPercent: 5, windowSeconds: 600 }), /^unsupported: .*no layer comes after it/);
  });

  it("makes metric-name-like alert names", () => {
    assert.equal(alertName("payment leak"), "PaymentLeak");
    assert.equal(alertName("3 rebalances/h"), "Dupscope3RebalancesH");
  });
});
