import type { TraceRecord } from "../../../collectors/codecs/rocketmq-trace-body.ts";
import { DEFAULTS } from "../topology.ts";
import type { Sim } from "./sim.ts";
import type { Host, TraceBuffer } from "./state.ts";

/**
 * The client's AsyncTraceDispatcher: records wait in memory and go out as one trace message per batch of 10, or
 * 5 s after the first of a batch. A crash loses what was waiting, as a real client does.
 */

interface Traced {
  trace: TraceBuffer;
  host: Host;
}

export function traceRecord(sim: Sim, owner: Traced, record: TraceRecord): void {
  const buffer = owner.trace;
  buffer.pending.push(record);
  if (buffer.pending.length >= DEFAULTS.traceBatch) {
    flushTrace(sim, owner);
    return;
  }
  if (buffer.pending.length === 1) {
    const generation = buffer.generation;
    sim.at(sim.now + DEFAULTS.traceFlushMs, () => {
      if (buffer.generation === generation) flushTrace(sim, owner);
    });
  }
}

export function flushTrace(sim: Sim, owner: Traced): void {
  const buffer = owner.trace;
  if (buffer.pending.length === 0) return;
  const store = sim.brokers["broker-a"];
  sim.out.trace.push({
    bornHost: buffer.bornHost,
    records: buffer.pending,
    storeTimestamp: store.local(sim.now + sim.rng.int(1, 4)),
    msgId: owner.host.uniq.next(owner.host.local(sim.now)),
  });
  buffer.pending = [];
  buffer.generation++;
}

export function dropTrace(owner: Traced): void {
  owner.trace.pending = [];
  owner.trace.generation++;
}
