import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conditionSchema, CONDITION_KINDS, describeCondition } from "../../../lib/alerts/conditions.ts";
import { KINDS, kindModule } from "../../../lib/alerts/kinds/index.ts";
import { promqlFor } from "../../../lib/alerts/prometheus-rules.ts";
import { GROUP_BY_LABELS } from "../../../lib/alerts/series.ts";
import { conditionText } from "../../../lib/i18n/condition.ts";
import { dictionary } from "../../../lib/i18n/dictionary.ts";
import type { Locale } from "../../../lib/i18n/locale.ts";

const LOCALES: readonly Locale[] = ["en", "zh-CN"];

/**
 * The contract of a condition kind (lib/alerts/kinds/kind.ts): every kind in the list is fully described, so a new
 * one cannot reach the API without its form, its PromQL (or a reason there is none) and its words in both languages.
 */
describe("condition kinds", () => {
  it("are each in the list once, and the schema takes exactly them", () => {
    assert.equal(new Set(CONDITION_KINDS).size, KINDS.length);
    assert.deepEqual(
      conditionSchema.options.map((o) => o.shape.kind.value),
      CONDITION_KINDS,
    );
  });

  for (const kind of CONDITION_KINDS) {
    describe(kind, () => {
      const m = kindModule(kind);

      it("has a form field for every key of its schema, and only those", () => {
        const keys = Object.keys((m.schema as unknown as { shape: Record<string, unknown> }).shape).filter((k) => k !== "kind");
        assert.deepEqual([...m.fields.map((f) => f.key)].sort(), keys.sort());
        for (const locale of LOCALES) {
          const t = dictionary(locale).alerts.ruleForm;
          for (const field of m.fields) assert.ok(t.fields[field.key], `${locale} labels ${field.key}`);
        }
      });

      it("can be split by known labels and has a unit", () => {
        assert.ok(m.groupableBy.length > 0 && m.groupableBy.every((l) => GROUP_BY_LABELS.includes(l)));
        assert.ok(["count", "percent", "seconds"].includes(m.unit));
      });

      it("has a title and sentences in both languages, and PromQL or a reason for none, for each example", () => {
        assert.ok(m.examples.length > 0);
        for (const locale of LOCALES) assert.ok(m.title[locale].trim() !== "" && dictionary(locale).alerts.ruleForm.kinds[kind] === m.title[locale], `${locale} title`);
        assert.notEqual(m.title.en, m.title["zh-CN"]);
        for (const example of m.examples) {
          const c = conditionSchema.parse(example);
          assert.equal(c.kind, kind);
          const en = conditionText(c, "en");
          const zh = conditionText(c, "zh-CN");
          assert.equal(en, describeCondition(c));
          assert.ok(en.trim() !== "" && /[\u4e00-\u9fff]/.test(zh) && en !== zh, `${en} / ${zh}`);
          assert.ok(m.threshold(c) >= 0);
          const promql = promqlFor(c);
          if ("expr" in promql) assert.match(promql.expr, /dupscope_[a-z_]+/);
          else assert.match(promql.unsupported, new RegExp(`^${kind}`));
        }
      });
    });
  }
});
