import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { driverSink } from "../../lib/ingest/driver-sink.ts";
import { startCollector, type RunningCollector } from "../../lib/rabbitmq/collector.ts";
import { localConnectionName } from "../../lib/rabbitmq/connection-name.ts";
import { dropQueueOf } from "../../lib/rabbitmq/topology.ts";
import { diagnoseKeys } from "../../lib/diagnosis-queue/queue.ts";
import { openStore, type Store } from "../../lib/store/open.ts";
import { ackLostStory, brokerProblems, deleteQueues, dlqReplayStory, rabbitmqctl, producerRetryStory, sleep, uniqueName, waitFor } from "../helpers/rabbitmq.ts";
import { backends } from "../helpers/stores.ts";

/**
 * The RabbitMQ collector against the machine's broker (127.0.0.1:5672, or RABBITMQ_URL): real consumers, real
 * redeliveries, a real dead-letter queue and shovel, a real node restart. The collector writes into a fresh store
 * of each backend and the stored events are diagnosed as the API diagnoses them. The broker must have the event
 * exchange and shovel plugins and tracing on vhost /; without them the suite fails and says what to run.
 */

let problems: string[] = [];
before(async () => {
  problems = await brokerProblems();
});

for (const backend of backends) {
  describe(`RabbitMQ collector into ${backend.name}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let collector: RunningCollector;
    const queue = uniqueName("collector");
    const log: string[] = [];

    before(async () => {
      assert.deepEqual(problems, [], `the RabbitMQ broker is not ready for these tests:\n  ${problems.join("\n  ")}`);
      const created = await backend.create();
      dispose = created.dispose;
      store = await openStore(created.config);
      collector = startCollector(
        { key: "json:$.orderId", queue, flushAfterMs: 50, reconnectInitialDelayMs: 200, reconnectMaxDelayMs: 1000 },
        { sink: driverSink(store.driver), log: (line) => log.push(line) },
      );
      await collector.ready;
      await waitFor("the collector to see its tracing probe", async () => collector.stats()[0]!.tracing === "on", 10_000);
    });

    after(async () => {
      await collector?.stop();
      await deleteQueues(queue, dropQueueOf(queue)).catch(() => {});
      await store?.close();
      await dispose?.();
    });

    const stored = async (bizKey: string, kind: string) =>
      (await store.driver.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE biz_key = $1 AND kind = $2`, [bizKey, kind]))[0]!.n;

    /** Waits until the collector stored the story's deliveries, then diagnoses the key from the store. */
    async function diagnosed(bizKey: string, deliveries: number) {
      await waitFor(`${deliveries} deliveries of ${bizKey} in the store`, async () => (await stored(bizKey, "consume_start")) >= deliveries);
      // The consumers' channel and connection closes follow the last delivery.
      await sleep(500);
      const [result] = await diagnoseKeys(store.driver, [bizKey]);
      assert.ok(result, `no stored events for ${bizKey}`);
      return result.diagnosis;
    }

    it("(a) a consumer's channel closes before its ack; the other consumer's redelivery is ack_lost, A then B", async () => {
      const story = await ackLostStory(`ORD-A-${queue.slice(-8)}`);
      const a = `${localConnectionName(story.firstConsumer)}@1`;
      const b = `${localConnectionName(story.secondConsumer)}@1`;
      await story.close();
      const d = await diagnosed(story.bizKey, 2);
      assert.equal(d.duplicates.length, 1);
      const v = d.duplicates[0]!;
      assert.equal(v.cause, "ack_lost");
      assert.deepEqual(v.instances, { first: a, second: b });
      assert.equal(v.sameInstance, false);
      assert.equal(v.group, story.queue);
      assert.ok(v.gapMs > 0 && v.gapMs < 10_000, `gap ${v.gapMs} ms`);
      assert.deepEqual(v.evidence.filter((e) => e.role === "cause").map((e) => e.code), ["channel_lost", "redelivered_flag"]);
    });

    it("(b) a publisher sends one message id twice: producer_retry", async () => {
      const story = await producerRetryStory(`ORD-B-${queue.slice(-8)}`);
      await story.close();
      const d = await diagnosed(story.bizKey, 2);
      assert.deepEqual(d.duplicates.map((v) => v.cause), ["producer_retry"]);
      assert.equal(d.duplicates[0]!.msgIds.first, story.msgId);
      assert.ok(d.duplicates[0]!.evidence.some((e) => e.code === "stored_copies" && e.values.copies === 2));
    });

    it("(c) a message rejected into a dead-letter queue and shovelled back: dlq_replay", async () => {
      const story = await dlqReplayStory(`ORD-C-${queue.slice(-8)}`);
      await story.close();
      // The work queue's two deliveries, and the shovel's delivery from the dead-letter queue.
      const d = await diagnosed(story.bizKey, 3);
      const work = d.duplicates.filter((v) => v.group === story.queue);
      assert.deepEqual(work.map((v) => v.cause), ["dlq_replay"]);
      assert.ok(work[0]!.evidence.some((e) => e.code === "shovelled"));
      assert.ok(work[0]!.evidence.some((e) => e.code === "dead_lettered" && e.values.reason === "rejected"));
    });

    it("(d) the broker restarts during collection: the collector reconnects and the next story is still diagnosed", async () => {
      const connects = collector.stats()[0]!.connects;
      await rabbitmqctl("stop_app");
      try {
        await waitFor("the collector to notice the broker left", async () => !collector.stats()[0]!.connected, 10_000);
      } finally {
        await rabbitmqctl("start_app");
        // Tracing does not survive a restart.
        await rabbitmqctl("trace_on", "-p", "/");
      }
      await waitFor("the collector to reconnect", async () => collector.stats()[0]!.connects > connects && collector.stats()[0]!.connected, 30_000);
      await waitFor("tracing to be back", async () => collector.stats()[0]!.tracing === "on", 15_000);
      const story = await ackLostStory(`ORD-D-${queue.slice(-8)}`, "socket");
      await story.close();
      const d = await diagnosed(story.bizKey, 2);
      assert.deepEqual(d.duplicates.map((v) => v.cause), ["ack_lost"]);
      assert.ok(log.some((line) => /reconnecting/.test(line)), "the collector said it was reconnecting");
    });
  });
}
