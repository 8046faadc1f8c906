import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { acknowledged, readAck, signAck } from "../../../lib/alerts/acks.ts";
import { prometheusTemplate, renderTemplate, unknownPlaceholders } from "../../../lib/alerts/annotations.ts";
import { ruleInputSchema } from "../../../lib/alerts/schema.ts";
import { formatMatchers, parseMatchers } from "../../../lib/alerts/matchers-text.ts";
import { matches, silenceInputSchema } from "../../../lib/alerts/silences.ts";

describe("annotation templates", () => {
  const data = { labels: { group: "cg_push", topic: "PUSH" }, value: 3.5, keys: ["K-1", "K-2"] };

  it("fills in labels, the value and the keys; a missing label reads as empty, as in Prometheus", () => {
    assert.equal(renderTemplate("{{ $labels.group }} leaked {{$value}} times: {{ $keys }}", data), "cg_push leaked 3.50 times: K-1 K-2");
    assert.equal(renderTemplate("https://wiki/{{ $labels.group }}/{{ $labels.cause }}", data), "https://wiki/cg_push/");
  });

  it("names the placeholders it cannot fill, and the rule is refused with them", () => {
    assert.deepEqual(unknownPlaceholders("{{ $labels.group }} {{ .Value }} {{ $externalURL }}"), ["{{ .Value }}", "{{ $externalURL }}"]);
    const parsed = ruleInputSchema.safeParse({
      name: "r",
      condition: { kind: "leaked_duplicates", threshold: 0, windowSeconds: 600 },
      runbookUrl: "https://wiki/{{ .Labels.group }}",
    });
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.error!.issues.map((i) => i.path.join(".")), ["runbookUrl"]);
  });

  it("keeps Prometheus' own placeholders for the exported rules and points {{ $keys }} to dupscope", () => {
    assert.equal(prometheusTemplate("{{ $labels.group }}: {{ $value }}; keys: {{ $keys }}"), "{{ $labels.group }}: {{ $value }}; keys: (the keys are on dupscope's alerts page)");
  });
});

describe("acknowledge links", () => {
  const key = Buffer.from("k".repeat(32));
  const claim = { ruleId: "r1", labels: { group: "cg_points" }, firingId: "42", expiresAt: 2_000_000 };

  it("reads back what it signed until it expires", () => {
    assert.deepEqual(readAck(key, signAck(key, claim), 1_000_000), claim);
    assert.throws(() => readAck(key, signAck(key, claim), 2_000_000), /expired/);
  });

  it("refuses a token signed with another key or changed in any character", () => {
    const token = signAck(key, claim);
    assert.throws(() => readAck(Buffer.from("x".repeat(32)), token, 0), /signature/);
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(..."ABCabc019-_."), (at, c) => {
        fc.pre(token[at] !== c);
        const changed = token.slice(0, at) + c + token.slice(at + 1);
        assert.throws(() => readAck(key, changed, 0));
      }),
    );
  });

  it("holds until its end, or until resolution when it has none", () => {
    assert.equal(acknowledged(null, null, 5), false);
    assert.equal(acknowledged(1, null, 5), true);
    assert.equal(acknowledged(1, 10, 5), true);
    assert.equal(acknowledged(1, 5, 5), false);
  });
});

describe("silence matchers", () => {
  const labels = { alertname: "LeakedDuplicates", severity: "critical", group: "cg_push", topic: "PUSH" };
  const m = (name: string, value: string, isRegex = false, isEqual = true) => ({ name, value, isRegex, isEqual });

  it("match as Alertmanager's do: equal, regex anchored at both ends, negated, all of them", () => {
    assert.equal(matches([m("group", "cg_push")], labels), true);
    assert.equal(matches([m("group", "cg_")], labels), false);
    assert.equal(matches([m("group", "cg_.*", true)], labels), true);
    assert.equal(matches([m("group", "push", true)], labels), false, "anchored");
    assert.equal(matches([m("group", "cg_points", false, false)], labels), true);
    assert.equal(matches([m("group", "cg_push"), m("severity", "warning")], labels), false);
    assert.equal(matches([m("cause", "")], labels), true, "a label the alert lacks is the empty string");
  });

  it("refuses an invalid regex and a silence with neither an end nor a duration", () => {
    const base = { createdBy: "ana", comment: "known" };
    assert.equal(silenceInputSchema.safeParse({ ...base, matchers: [m("group", "(", true)], durationMinutes: 60 }).success, false);
    assert.equal(silenceInputSchema.safeParse({ ...base, matchers: [m("group", "x")] }).success, false);
    assert.equal(silenceInputSchema.safeParse({ ...base, matchers: [m("group", "x")], durationMinutes: 60 }).success, true);
  });
});

describe("silence matchers as text", () => {
  it("reads Alertmanager's syntax, one per line or comma separated", () => {
    assert.deepEqual(parseMatchers('group=cg_push\nseverity!=info, topic=~"PAY_.*"\ncause!~"rebalance|ack_lost"'), {
      matchers: [
        { name: "group", value: "cg_push", isRegex: false, isEqual: true },
        { name: "severity", value: "info", isRegex: false, isEqual: false },
        { name: "topic", value: "PAY_.*", isRegex: true, isEqual: true },
        { name: "cause", value: "rebalance|ack_lost", isRegex: true, isEqual: false },
      ],
    });
  });

  it("says what is wrong with a line it cannot read", () => {
    assert.deepEqual(parseMatchers("group cg_push"), { problem: '"group cg_push" is not name=value, name!=value, name=~regex or name!~regex' });
    assert.deepEqual(parseMatchers("  "), { problem: "no matcher: a silence needs at least one" });
    assert.match((parseMatchers('group="cg_push') as { problem: string }).problem, /not closed/);
  });

  it("reads back whatever it writes", () => {
    const matcher = fc.record({
      name: fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,10}$/),
      value: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('a,b=c', 'x"y', "back\\slash", "new\nline", " =~!")),
      isRegex: fc.boolean(),
      isEqual: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(matcher, { minLength: 1, maxLength: 4 }), (generated) => {
        // fast-check's records have no prototype; the parser's are plain objects.
        const matchers = generated.map((m) => ({ ...m }));
        assert.deepEqual(parseMatchers(formatMatchers(matchers)), { matchers });
      }),
    );
  });
});
