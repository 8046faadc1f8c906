import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { diagnoseKeyWithReach } from "../../../lib/diagnosis/diagnose.ts";
import { action, givesQueueUp, isQueueDropped, isQueueRemoved, isResultSet } from "../../../lib/diagnosis/sources.ts";
import { CONTEXT_AFTER_MS, CONTEXT_BEFORE_MS, msgIdsOf } from "../../../lib/diagnosis/scope.ts";
import type { DiagnosisInput } from "../../../lib/diagnosis/types.ts";
import { canonicalInstance } from "../../../lib/events/instance.ts";
import type { NormalizedEvent } from "../../../lib/events/model.ts";
import { runSimulation } from "../../../lib/simulator/run.ts";
import { contributionOf, namedKeysOf } from "../../../lib/store/ingest-journal.ts";
import { inputsOf } from "../../helpers/diagnosis-inputs.ts";
import { parseSimulation } from "../../helpers/simulated-events.ts";

/**
 * A key's reach (lib/diagnosis/reach.ts) bounds which late context lines the worker re-diagnoses it for. The claim
 * is checked on the simulator's every scenario, parsed from its files: once the lines stamped up to a key's reach
 * have arrived, the lines after it leave the diagnosis as it is; and so does any keyless line of the simulation added
 * after it, moved into one of the key's groups and onto one of the instances that consumed it, unless the line names
 * the key or one of its messages: such a line queues its key whatever its time. The same holds of its quiet reach
 * for every line that gives no queue up (sources.ts givesQueueUp).
 */

interface Case {
  input: DiagnosisInput;
  reach: number;
  quietReach: number;
  groups: string[];
  instances: string[];
  /** The end of the key's context: CONTEXT_AFTER_MS after its last event. */
  contextEnd: number;
  /** Its start: CONTEXT_BEFORE_MS before its first event. */
  contextStart: number;
}

const byTs = (a: NormalizedEvent, b: NormalizedEvent) => a.ts - b.ts;

/** Keys with a duplicate; those of them whose reach is bounded; keys without one (a lost message, one delivery). */
const all: Case[] = [];
const cases: Case[] = [];
const unjudged: Case[] = [];
let lines: NormalizedEvent[] = [];

before(() => {
  for (const seed of [5, 6]) {
    const { events } = parseSimulation(runSimulation({ scenario: "all", keys: 500, seed, skewMs: 1500 }));
    lines.push(...events.filter((e) => e.bizKey === null));
    for (const input of inputsOf(events)) {
      const { diagnosis, reach, quietReach } = diagnoseKeyWithReach(input);
      const instances = [...new Set(diagnosis.deliveries.flatMap((d) => (d.instance === null ? [] : [d.instance])))];
      const groups = [...new Set(input.events.flatMap((e) => (e.group === null ? [] : [e.group])))];
      const ts = input.events.map((e) => e.ts);
      const c = { input, reach, quietReach, groups, instances, contextEnd: Math.max(...ts) + CONTEXT_AFTER_MS, contextStart: Math.min(...ts) - CONTEXT_BEFORE_MS };
      if (reach === -Infinity) unjudged.push(c);
      else all.push(c);
      if (Number.isFinite(reach)) cases.push(c);
    }
  }
  lines = lines.filter((e) => e.group !== null || e.instance !== null);
});

function same(input: DiagnosisInput, changed: DiagnosisInput): void {
  const was = diagnoseKeyWithReach(input);
  const now = diagnoseKeyWithReach(changed);
  assert.deepEqual(now.diagnosis, was.diagnosis);
  assert.equal(now.reach, was.reach);
  assert.equal(now.quietReach, was.quietReach);
}

const loud = (e: NormalizedEvent) => givesQueueUp(e.kind, action(e), e.queue);

describe("a key's reach", () => {
  it("is bounded for most keys with a duplicate in the simulator's scenarios", () => {
    assert.ok(all.length > 200, `${all.length} keys with a duplicate`);
    assert.ok(cases.length > all.length / 2, `${cases.length} of ${all.length} keys have a bounded reach`);
  });

  it("is never later than the reach for lines that give no queue up, and much nearer for most keys", () => {
    for (const c of all) assert.ok(c.quietReach <= c.reach, c.input.bizKey);
    const nearer = cases.filter((c) => c.quietReach < c.reach).length;
    assert.ok(nearer > cases.length / 2, `${nearer} of ${cases.length} keys with a bounded reach have a nearer quiet one`);
  });

  /**
   * The lines stamped up to a cut have arrived, the later ones not yet (but those `always` keeps); the cut moves to the
   * bound `reachOf` reads until it covers it. Then the whole run's context must give the same diagnosis.
   */
  function checkLateLines(reachOf: (r: ReturnType<typeof diagnoseKeyWithReach>) => number, always: (e: NormalizedEvent) => boolean): void {
    let checked = 0;
    let late = 0;
    for (const c of all) {
      let cut = Math.max(...c.input.events.map((e) => e.ts));
      for (let round = 0; round < 5; round++) {
        const arrived = { ...c.input, context: c.input.context.filter((e) => e.ts <= cut || always(e)) };
        const result = diagnoseKeyWithReach(arrived);
        const bound = reachOf(result);
        if (bound === Infinity) break;
        if (bound > cut) {
          cut = bound;
          continue;
        }
        late += c.input.context.length - arrived.context.length;
        assert.deepEqual(diagnoseKeyWithReach(c.input).diagnosis, result.diagnosis, c.input.bizKey);
        checked++;
        break;
      }
    }
    assert.ok(checked > all.length / 2, `${checked} of ${all.length} keys checked`);
    assert.ok(late > 1000, `${late} later lines`);
  }

  it("gives the diagnosis every later line of the run gives, once the lines that give a queue up and the others up to its quiet reach have arrived", () => {
    checkLateLines((r) => r.quietReach, loud);
  });

  it("gives the diagnosis every later line of the run gives, once the lines up to it have arrived", () => {
    checkLateLines((r) => r.reach, () => false);
  });

  /** Any keyless line of the run, moved into one of a case's groups, onto one of its instances, stamped after `from`. */
  const movedLine = (pick: Case[], from: (c: Case) => number) =>
    fc.record({ caseAt: fc.nat(), lineAt: fc.nat(), groupAt: fc.nat(), instanceAt: fc.nat(), when: fc.double({ min: 0, max: 1, noNaN: true }), keepInstance: fc.boolean() }).map((a) => {
      const c = pick[a.caseAt % pick.length]!;
      const model = lines[a.lineAt % lines.length]!;
      const start = from(c);
      const ts = Math.floor(start + 1 + a.when * (c.contextEnd - start - 1));
      const instance = a.keepInstance || c.instances.length === 0 ? model.instance : c.instances[a.instanceAt % c.instances.length]!;
      const added: NormalizedEvent = {
        ...model,
        id: `${model.id}~moved`,
        ts,
        group: c.groups[a.groupAt % c.groups.length] ?? model.group,
        instance,
        detail: { ...model.detail, ...(instance === null ? {} : { host: canonicalInstance(instance).host }) },
      };
      return { c, model, added };
    });

  // A line naming the key or one of its messages queues the key itself (lib/store/ingest-journal.ts).
  const namesNone = ({ c, model }: { c: Case; model: NormalizedEvent }) =>
    !msgIdsOf(c.input.events).includes(model.msgId ?? "") && !namedKeysOf(model.detail.keys).includes(c.input.bizKey);

  it("leaves a key's diagnosis as it is with any line of its groups added after it", () => {
    fc.assert(
      fc.property(movedLine(cases, (c) => c.reach), (moved) => {
        fc.pre(namesNone(moved));
        same(moved.c.input, { ...moved.c.input, context: [...moved.c.input.context, moved.added].sort(byTs) });
      }),
      { numRuns: 2000 },
    );
  });

  it("leaves a key's diagnosis as it is with any line of its groups that gives no queue up added after its quiet reach", () => {
    fc.assert(
      fc.property(movedLine(cases, (c) => c.quietReach), (moved) => {
        fc.pre(namesNone(moved) && !loud(moved.added));
        same(moved.c.input, { ...moved.c.input, context: [...moved.c.input.context, moved.added].sort(byTs) });
      }),
      { numRuns: 2000 },
    );
  });

  it("can still change with a line that gives a queue up, of each kind, stamped after the quiet reach", () => {
    const changedBy = new Map<string, number>();
    for (const c of cases.filter((k) => k.quietReach < k.reach)) {
      const was = diagnoseKeyWithReach(c.input).diagnosis;
      for (const lineAction of ["remove", "dropped_without_result", "result"]) {
        for (const d of was.deliveries) {
          const line: NormalizedEvent = {
            ...c.input.events[0]!, id: `late-${lineAction}-${d.id}`, kind: "rebalance", bizKey: null, msgId: null, ts: c.quietReach + 1,
            queue: d.queue, instance: d.instance, group: d.group, detail: { action: lineAction, queues: [] },
          };
          if (!loud(line)) continue; // a removal names its queue
          const now = diagnoseKeyWithReach({ ...c.input, context: [...c.input.context, line].sort(byTs) }).diagnosis;
          if (!isDeepStrictEqual(now, was)) changedBy.set(lineAction, (changedBy.get(lineAction) ?? 0) + 1);
        }
      }
    }
    assert.deepEqual([...changedBy.keys()].sort(), ["dropped_without_result", "remove", "result"], JSON.stringify([...changedBy]));
  });

  it("leaves a key without a duplicate as it is with any line of its groups added anywhere in its context", () => {
    const lost = unjudged.filter((c) => diagnoseKeyWithReach(c.input).diagnosis.lost.length > 0).length;
    assert.ok(lost > 10, `${lost} keys with a lost message among ${unjudged.length}`);
    fc.assert(
      fc.property(movedLine(unjudged, (c) => c.contextStart), (moved) => {
        fc.pre(namesNone(moved));
        same(moved.c.input, { ...moved.c.input, context: [...moved.c.input.context, moved.added].sort(byTs) });
      }),
      { numRuns: 1000 },
    );
  });
});

describe("givesQueueUp", () => {
  it("tells from a line's kind, action and queue what isQueueRemoved, isQueueDropped and isResultSet tell from the line", () => {
    const kinds = fc.constantFrom("rebalance", "instance_lifecycle", "consume_end", "dedup");
    const actions = fc.oneof(fc.constantFrom("remove", "revoke", "add", "assign", "dropped_without_result", "result", "dropped", "lost", "connected"), fc.string(), fc.integer(), fc.constant(undefined));
    fc.assert(
      fc.property(fc.record({ line: fc.nat(lines.length - 1), kind: kinds, action: actions, queue: fc.option(fc.constantFrom("broker-a:3", "")) }), (a) => {
        const e: NormalizedEvent = { ...lines[a.line]!, kind: a.kind as NormalizedEvent["kind"], queue: a.queue, detail: a.action === undefined ? {} : { action: a.action } };
        const expected = isQueueRemoved(e) || isQueueDropped(e) || isResultSet(e);
        assert.equal(givesQueueUp(e.kind, action(e), e.queue), expected);
        assert.equal(givesQueueUp(e.kind, contributionOf(e).action, e.queue), expected, "as the ingest journal reads the action");
      }),
      { numRuns: 2000 },
    );
  });
});
