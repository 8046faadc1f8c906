import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadDemoDay } from "../../lib/demo/load.ts";
import { foldHoldings, holdingChangesIn, holdingsFor, queuesOf, type HoldingInterval } from "../../lib/diagnosis/holdings.ts";
import { mayPairDeliveries } from "../../lib/diagnosis/diagnose.ts";
import { foldMembers, memberChangesIn, membersFor, membersSpan, type MemberInterval } from "../../lib/diagnosis/members.ts";
import { contextOf, contextScope, msgIdsOf, otherMessageKeys } from "../../lib/diagnosis/scope.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { driverSink } from "../../lib/ingest/driver-sink.ts";
import { loadDiagnosisInputs } from "../../lib/queries/diagnosis-input.ts";
import { EVENT_SELECT, eventFromSql, type EventRowSql } from "../../lib/store/event-rows.ts";
import { openPgPools, pgDriver } from "../../lib/store/driver.ts";
import { insertCopyRows, toCopyRows } from "../../lib/store/events-repo.ts";
import { foldJournal } from "../../lib/store/ingest-journal.ts";
import { eventPartitions } from "../../lib/store/partitions.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { backends } from "../helpers/stores.ts";

/**
 * The store's SQL narrows the context with indexes and a host prefix before scope.ts decides; the evaluation grades
 * the engine on scope.ts's selection over all events. Both must pick the same events for every key, whether a key
 * is read alone (the API) or in a batch (the worker), and the same members of its groups (membersFor over a fold of
 * every stored membership line) and holders of its queues (holdingsFor over a fold of every rebalance line).
 */

const NOW = Date.UTC(2026, 11, 1, 9, 30);

const ids = (events: readonly NormalizedEvent[]) => events.map((e) => e.id).sort();

for (const backend of backends) {
  describe(`diagnosis input on ${backend.name}`, () => {
    let store: Store;
    let url: string | undefined;
    let dispose: () => Promise<void>;
    let all: NormalizedEvent[];
    let keys: string[];

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      url = created.config.mode === "postgres" ? created.config.url : undefined;
      store = await openStore(created.config);
      await loadDemoDay({ now: NOW, hours: 3, runs: 1, scale: 0.4, sink: driverSink(store.driver) });
      // The groups' members are folded from the ingest journal, as a diagnosis worker does before it reads keys.
      while ((await foldJournal(store.driver)).rows > 0);
      all = (await store.driver.query<EventRowSql>(`SELECT ${EVENT_SELECT} FROM events`)).map(eventFromSql);
      keys = [...new Set(all.flatMap((e) => (e.bizKey === null ? [] : [e.bizKey])))].sort();
    });
    after(async () => {
      await store?.close();
      await dispose?.();
    });

    /** The members' fields both sides give, in one order. */
    const memberRows = (members: readonly MemberInterval[]) =>
      members.map((i) => JSON.stringify([i.group, i.member, i.via, i.remote, i.since, i.sinceEvent, i.until, i.untilEvent, i.closedBy, i.model])).sort();

    /** scope.ts over every stored event, without an index. */
    /** The holdings' fields both sides give, in one order. */
    const holdingRows = (holdings: readonly HoldingInterval[]) =>
      holdings.map((i) => JSON.stringify([i.group, i.topic, i.queue, i.holder, i.since, i.sinceEvent, i.until, i.untilEvent, i.closedBy])).sort();

    function expected(bizKey: string): { events: string[]; context: string[]; members: string[]; holdings: string[]; othersLeftOut: number } {
      const own = all.filter((e) => e.bizKey === bizKey);
      const named = new Set(msgIdsOf(own));
      const events = [...own, ...all.filter((e) => e.bizKey === null && e.msgId !== null && named.has(e.msgId))];
      const keyless = all.filter((e) => e.bizKey === null);
      const context = contextOf(events, keyless);
      // Lines of the key's groups and windows about other messages' consumption, which the context leaves out.
      const scope = contextScope(events)!;
      const othersLeftOut = keyless.filter(
        (e) =>
          e.group !== null &&
          scope.groups.includes(e.group) &&
          scope.windows.some((w) => e.ts >= w.from && e.ts <= w.to) &&
          otherMessageKeys(e)?.includes(bizKey) === false,
      ).length;
      // Only a key with two deliveries in a group gets its groups' state (mayPairDeliveries).
      const paired = mayPairDeliveries(bizKey, events);
      const members = paired ? memberRows(membersFor(foldMembers(memberChangesIn(keyless)), scope.groups, membersSpan(events), scope)) : [];
      const holdings = paired ? holdingRows(holdingsFor(foldHoldings(holdingChangesIn(keyless), memberChangesIn(keyless)), queuesOf(events), membersSpan(events))) : [];
      return { events: ids(events), context: ids(context), members, holdings, othersLeftOut };
    }

    it("a key read alone gets exactly scope.ts's events and context", async () => {
      assert.ok(keys.length > 200, `${keys.length} keys`);
      let withHostContext = 0;
      let othersLeftOut = 0;
      let withMembers = 0;
      let withHoldings = 0;
      for (const key of keys.filter((_, i) => i % 3 === 0)) {
        const [input] = await loadDiagnosisInputs(store.driver, [key]);
        const want = expected(key);
        assert.deepEqual(ids(input!.events), want.events, `events of ${key}`);
        assert.deepEqual(ids(input!.context), want.context, `context of ${key}`);
        assert.deepEqual(memberRows(input!.members ?? []), want.members, `members of ${key}'s groups`);
        if ((input!.members ?? []).length > 0) withMembers++;
        assert.deepEqual(holdingRows(input!.holdings ?? []), want.holdings, `holders of ${key}'s queues`);
        if ((input!.holdings ?? []).length > 0) withHoldings++;
        if (input!.context.some((e) => e.group === null)) withHostContext++;
        othersLeftOut += want.othersLeftOut;
      }
      assert.ok(withHostContext >= 5, `keys with groupless context from their hosts: ${withHostContext}`);
      assert.ok(withMembers >= 10, `keys whose groups' members were read: ${withMembers}`);
      assert.ok(withHoldings >= 10, `keys whose queues' holders were read: ${withHoldings}`);
      assert.ok(othersLeftOut >= 10, `lines about other messages' consumption left out: ${othersLeftOut}`);
    });

    if (backend.name === "postgres") {
      it("plans each key statement once per connection, generically, and only executes it after that", async () => {
        const driver = pgDriver(openPgPools(url!, { max: 1, preparedMax: 1 }));
        try {
          // Keys with two deliveries of a group and a queue: those read all four statements (mayPairDeliveries).
          const sample = keys.filter((key) => {
            const own = all.filter((e) => e.bizKey === key);
            return mayPairDeliveries(key, own) && queuesOf(own).length > 0;
          }).slice(0, 30);
          assert.ok(sample.length >= 10, `keys that read every statement: ${sample.length}`);
          for (const key of sample) await loadDiagnosisInputs(driver, [key]);
          const plans = await driver.prepared<{ name: string; generic_plans: string; custom_plans: string }>(
            { name: "dupscope_test_plans", text: `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'dupscope_key_%' ORDER BY name` },
            [],
          );
          assert.deepEqual(plans.map((p) => p.name), ["dupscope_key_context", "dupscope_key_events", "dupscope_key_holdings", "dupscope_key_members"]);
          for (const p of plans) {
            assert.equal(Number(p.custom_plans), 0, `${p.name}: custom plans`);
            assert.ok(Number(p.generic_plans) >= sample.length - 1, `${p.name}: ${p.generic_plans} runs of the generic plan`);
          }
        } finally {
          await driver.close();
        }
      });
      it("a partition nearly empty when the statements were planned is still read through its indexes once it fills", async () => {
        // Each connection keeps its generic plans until something invalidates them, and nothing does while a new
        // partition fills: a plan made when the day's partition was new must not scan it whole (a 1,000-key step of
        // the worker once took seconds scanning a young partition, comparing each row with every key).
        const pools = openPgPools(url!, { max: 1, preparedMax: 1 });
        const driver = pgDriver(pools);
        const day = NOW - 5 * 86_400_000;
        const event = (n: number, keyed: boolean): NormalizedEvent => ({
          id: `test-young:${keyed ? "k" : "r"}${n}`, kind: keyed ? "consume_start" : "rebalance", ts: day + n * 10, tsPrecision: "ms",
          bizKey: keyed ? `YOUNG-${n}` : null, msgId: keyed ? `MSG-YOUNG-${n}` : null, offsetMsgId: null, broker: "rocketmq", topic: "PAY_SUCCESS",
          group: "pay-consumer", queue: `broker-a:${n % 16}`, queueOffset: keyed ? n : null, instance: `10.0.1.${n % 4}@7000`, retryTimes: keyed ? 0 : null,
          redelivered: null, success: null, detail: keyed ? {} : { action: "add" }, source: "test:young",
        });
        try {
          // Two consumptions of YOUNG-0 on two instances: a key that pairs reads the groups' state too.
          await insertCopyRows(driver, toCopyRows([event(0, true), { ...event(0, true), id: "test-young:k0b", ts: day + 5, instance: "10.0.1.1@7000" }]));
          const partition = (await driver.session(eventPartitions)).find((p) => p.from <= day && day < p.to)!.name;
          await loadDiagnosisInputs(driver, ["YOUNG-0"]);
          const rows = Array.from({ length: 20_000 }, (_, i) => event(i + 1, i % 10 !== 0));
          for (let i = 0; i < rows.length; i += 5000) await insertCopyRows(driver, toCopyRows(rows.slice(i, i + 5000)));
          const keys = `ARRAY[${Array.from({ length: 50 }, (_, i) => `'YOUNG-${i * 97 + 1}'`).join(", ")}]`;
          const executions = [
            `dupscope_key_events(${keys}, array_fill(${day}::bigint, ARRAY[50]))`,
            `dupscope_key_context(ARRAY['pay-consumer'], ARRAY[${day}]::bigint[], ARRAY[${day + 60_000}]::bigint[], ARRAY[]::text[], ${keys})`,
            `dupscope_key_members(ARRAY['pay-consumer'], ARRAY[${day}]::bigint[], ARRAY[${day + 60_000}]::bigint[], ARRAY['10.0.1.1'], ARRAY['10.0.1.1@7000'])`,
          ];
          for (const execution of executions) {
            const plan = (await pools.prepared.query<{ "QUERY PLAN": string }>(`EXPLAIN EXECUTE ${execution}`)).rows.map((r) => r["QUERY PLAN"]).join("\n");
            assert.doesNotMatch(plan, new RegExp(`Seq Scan on ${partition}\\b`), `${execution.slice(0, 20)}…:\n${plan}`);
          }
          const [input] = await loadDiagnosisInputs(driver, ["YOUNG-98"]);
          assert.deepEqual(input!.events.map((e) => e.id), ["test-young:k98"]);
        } finally {
          await driver.close();
          await store.driver.run(`DELETE FROM events WHERE source = 'test:young'`);
        }
      });
      it("a key read from a time gets its own events from then on, and its probes leave out the partitions before", async () => {
        const pools = openPgPools(url!, { max: 1, preparedMax: 1 });
        const driver = pgDriver(pools);
        const early = NOW - 3 * 86_400_000;
        const late = NOW - 86_400_000;
        const event = (id: string, ts: number, bizKey: string | null): NormalizedEvent => ({
          id: `test-from:${id}`, kind: bizKey === null ? "consume_end" : "consume_start", ts, tsPrecision: "ms", bizKey, msgId: "MSG-FROM-1", offsetMsgId: null,
          broker: "rocketmq", topic: "PAY_SUCCESS", group: "pay-consumer", queue: "broker-a:1", queueOffset: 7, instance: "10.0.1.1@7000", retryTimes: 0,
          redelivered: null, success: null, detail: {}, source: "test:from",
        });
        try {
          await insertCopyRows(driver, toCopyRows([event("own-early", early, "FROM-1"), event("keyless-early", early + 5, null), event("own-late", late, "FROM-1"), event("keyless-late", late + 5, null)]));
          const [whole] = await loadDiagnosisInputs(driver, ["FROM-1"]);
          assert.deepEqual(ids(whole!.events), ["test-from:keyless-early", "test-from:keyless-late", "test-from:own-early", "test-from:own-late"]);
          const [from] = await loadDiagnosisInputs(driver, ["FROM-1"], new Map([["FROM-1", late]]));
          assert.deepEqual(ids(from!.events), ["test-from:keyless-early", "test-from:keyless-late", "test-from:own-late"], "its message's keyless events whenever they are");
          const partitions = await driver.session(eventPartitions);
          const earlyPartition = partitions.find((p) => p.from <= early && early < p.to)!.name;
          const latePartition = partitions.find((p) => p.from <= late && late < p.to)!.name;
          const plan = (await pools.prepared.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE dupscope_key_events(ARRAY['FROM-1'], ARRAY[${late}]::bigint[])`))
            .rows.map((r) => r["QUERY PLAN"]);
          // The key's own probes: the first Append under the first Nested Loop, one scan per partition.
          const own = plan.slice(0, plan.findIndex((line) => line.includes("CTE Scan on own")));
          const scans = (partition: string) => own.filter((line) => new RegExp(`Scan .*on ${partition}\\b`).test(line));
          assert.ok(scans(earlyPartition).length > 0 && scans(latePartition).length > 0, plan.join("\n"));
          assert.ok(scans(latePartition).some((line) => !line.includes("never executed")), plan.join("\n"));
          assert.ok(scans(earlyPartition).every((line) => line.includes("never executed")), plan.join("\n"));
        } finally {
          await driver.close();
          await store.driver.run(`DELETE FROM events WHERE source = 'test:from'`);
        }
      });
    }

    it("keys read in a batch get the same as alone", async () => {
      const batch = keys.slice(0, 150);
      const inputs = await loadDiagnosisInputs(store.driver, batch);
      assert.equal(inputs.length, batch.length);
      for (const input of inputs) {
        const want = expected(input.bizKey);
        assert.deepEqual(ids(input.events), want.events, `events of ${input.bizKey}`);
        assert.deepEqual(ids(input.context), want.context, `context of ${input.bizKey}`);
      }
    });
  });
}
