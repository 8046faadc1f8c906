import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renderReport } from "../../../lib/views/key-report.ts";
import { diagnoseKey } from "../../../lib/diagnosis/diagnose.ts";
import { formatDuration } from "../../../lib/format/duration.ts";
import { dictionary } from "../../../lib/i18n/dictionary.ts";
import { verdictHeadline } from "../../../lib/i18n/headline.ts";
import { pickLocale } from "../../../lib/i18n/locale.ts";
import { client, dedup, redisOnce, trace } from "../../helpers/diagnosis-events.ts";

const KEY = "ORD-20261130-000042";
const MSG = "0A000005216C18B4AAC27A9E2A3F0001";
const GROUP = "pay-consumer";
const A = "10.0.0.5@4121";
const B = "10.0.0.7@88";

function rebalanceReport(locale: "en" | "zh-CN") {
  const events = [
    trace.pub({ at: -200, bizKey: KEY, msgId: MSG, offsetMsgId: "0A00000B00002A9F000000000003E8A0", host: "10.0.0.20" }),
    ...trace.consume({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.5" }),
    ...redisOnce({ at: 1300, bizKey: KEY, msgId: MSG, group: GROUP, instance: A, queue: "broker-a:3", queueOffset: 88123 }),
    ...trace.consume({ at: 1690, bizKey: KEY, msgId: MSG, group: GROUP, host: "10.0.0.7" }),
    dedup({ at: 1692, bizKey: KEY, msgId: MSG, group: GROUP, instance: B, layer: "db", decision: "hit", queue: "broker-a:3", queueOffset: 88123 }),
  ];
  const context = [
    client.rebalance("remove", { at: 1201, group: GROUP, queue: "broker-a:3", instance: A }),
    client.rebalance("add", { at: 1204, group: GROUP, queue: "broker-a:3", instance: B }),
    client.processQueueDropped({ at: 1380, queue: "broker-a:3", instance: A, msgId: MSG, queueOffset: 88123, keys: [KEY] }),
  ];
  return renderReport(KEY, events, context, false, diagnoseKey({ bizKey: KEY, events, context }), { locale });
}

describe("verdict in one sentence", () => {
  it("names the cause, the evidence that shows it best and the layer that caught it", () => {
    const report = rebalanceReport("en");
    const [v] = report.duplicates;
    const segments = verdictHeadline(v!, "en");
    const sentence = segments.map((s) => s.text).join("");
    assert.match(sentence, /^Duplicate caused by rebalance: queue .*broker-a:3 moved from 10\.0\.0\.5@4121 to 10\.0\.0\.7@88 .*; caught by the DB unique key\.$/);
    assert.deepEqual(segments.filter((s) => s.strong).map((s) => s.text), ["rebalance", "DB unique key"]);
  });

  it("reads in Chinese with the Chinese diagnosis wording", () => {
    const [v] = rebalanceReport("zh-CN").duplicates;
    const sentence = verdictHeadline(v!, "zh-CN").map((s) => s.text).join("");
    assert.match(sentence, /^重复消费的原因是重平衡：队列 .* 从 10\.0\.0\.5@4121 转到 10\.0\.0\.7@88.*；被拦截于数据库唯一键。$/);
  });
});

describe("verdict in one sentence, when the clocks were overruled", () => {
  it("gives the cause's evidence as the reason, not that the clocks put the deliveries the other way round", () => {
    // B's retry (retryTimes 1) is stamped 189 ms before A's first attempt; both ran the business.
    const line = (at: number, instance: string, decision: "pass" | "executed", retryTimes: number) => dedup({ at, bizKey: KEY, msgId: MSG, group: GROUP, instance, layer: "redis", decision, retryTimes });
    const events = [line(189, A, "pass", 0), line(191, A, "executed", 0), line(0, B, "pass", 1), line(2, B, "executed", 1)];
    const [v] = renderReport(KEY, events, [], false, diagnoseKey({ bizKey: KEY, events, context: [] }), { locale: "en" }).duplicates;
    assert.ok(v!.evidence.some((e) => e.code === "reordered"));
    const sentence = verdictHeadline(v!, "en").map((s) => s.text).join("");
    assert.doesNotMatch(sentence, /other way round/);
  });
});

describe("languages", () => {
  it("?lang wins over the cookie, the cookie over the browser, the browser over English", () => {
    assert.equal(pickLocale({ query: "zh-CN", cookie: "en", acceptLanguage: "en-US" }), "zh-CN");
    assert.equal(pickLocale({ cookie: "zh-CN", acceptLanguage: "en-US,en;q=0.9" }), "zh-CN");
    assert.equal(pickLocale({ acceptLanguage: "fr-FR,zh-CN;q=0.8,en;q=0.5" }), "zh-CN");
    assert.equal(pickLocale({ query: "klingon", acceptLanguage: "de" }), "en");
  });

  it("the Chinese table has every entry of the English one", () => {
    const shape = (o: object): unknown => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === "object" && v !== null ? shape(v) : typeof v]));
    assert.deepEqual(shape(dictionary("zh-CN")), shape(dictionary("en")));
  });

  it("durations read the same way as the diagnosis sentences, in both languages", () => {
    assert.deepEqual(
      [390, 999.7, 1234, 12_400, 59_700, 119_600, 3_599_700, 61 * 60_000, 26 * 3_600_000].map((ms) => formatDuration(ms)),
      // Cut, never rounded up into the next unit (lib/format/duration.ts).
      ["390 ms", "999 ms", "1.2 s", "12 s", "59 s", "1 min 59 s", "59 min 59 s", "1 h 1 min", "1 d 2 h"],
    );
    assert.equal(formatDuration(1500, "zh-CN"), "1.5 秒");
    assert.equal(formatDuration(-250), "−250 ms");
  });
});
