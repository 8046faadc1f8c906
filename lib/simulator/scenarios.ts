import { HOUR, MINUTE, SECOND } from "./clock.ts";
import type { Planner } from "./planner.ts";
import { BROKER_NAMES, delayOfLevel, GROUPS } from "./topology.ts";

/**
 * The labelled scenarios. Each plans exactly the number of business keys it is given, with the faults that make
 * its kind of duplicate; the labels in truth.json come from what the model then did, not from the scenario's
 * intent, so a key caught up in another scenario's fault is labelled for what happened to it.
 */
export interface Scenario {
  name: string;
  summary: string;
  /** Consumer groups the scenario sends to (groups on the same topics take part too). */
  groups: readonly string[];
  plan(p: Planner, keys: number): void;
}

const ORDER = "cg_order_paid";

function eachKey(p: Planner, keys: number, group: string | (() => string), plan: (group: string, bizKey: string, at: number) => void): void {
  for (let i = 0; i < keys; i++) {
    const name = typeof group === "string" ? group : group();
    plan(name, p.key(name), p.spread());
  }
}

/** Keys split into episodes of about `perEpisode`. */
function episodes(keys: number, perEpisode: number): number[] {
  const count = Math.ceil(keys / perEpisode);
  return Array.from({ length: count }, (_, i) => Math.floor((keys * (i + 1)) / count) - Math.floor((keys * i) / count));
}

/** The same business key sent twice: the upstream called the producer again (a repeated callback). */
function sendTwice(p: Planner, group: string, bizKey: string, at: number, gapMs: number): void {
  p.send(group, at, bizKey, { producer: 0 });
  p.send(group, at + gapMs, bizKey, { producer: p.rng.chance(0.5) ? 1 : 0 });
}

const clean: Scenario = {
  name: "clean",
  summary: "every key published once and consumed once: no duplicate",
  groups: [ORDER],
  plan: (p, keys) => eachKey(p, keys, ORDER, (g, key, at) => p.send(g, at, key)),
};

const normalRetry: Scenario = {
  name: "normal_retry",
  summary: "the first attempt fails cleanly (rolled back, marker released) and the retry 10 s later succeeds: not a duplicate",
  groups: [ORDER],
  plan: (p, keys) =>
    eachKey(p, keys, ORDER, (g, key, at) => {
      p.behave(g, key, { failures: p.rng.chance(0.2) ? 2 : 1, failMode: "clean" });
      p.send(g, at, key);
    }),
};

const producerRetry: Scenario = {
  name: "producer_retry",
  summary: "the broker stored the message but the answer was lost (or said SLAVE_NOT_AVAILABLE): resent with the same msgId",
  groups: [ORDER],
  plan: (p, keys) =>
    eachKey(p, keys, ORDER, (g, key, at) => {
      const attempts = p.rng.weighted([
        [["ack_lost", "ok"], 0.6],
        [["not_ok", "ok"], 0.3],
        [["ack_lost", "ack_lost", "ok"], 0.1],
      ] as const);
      p.send(g, at, key, { attempts });
    }),
};

const upstreamResend: Scenario = {
  name: "upstream_resend",
  summary: "the upstream called the producer twice (repeated payment callback): a new msgId with the same key",
  groups: [ORDER, "cg_coupon"],
  plan: (p, keys) =>
    eachKey(
      p,
      keys,
      () => (p.rng.chance(0.75) ? ORDER : "cg_coupon"),
      (g, key, at) => sendTwice(p, g, key, at, p.rng.logUniformMs(2 * SECOND, 8 * MINUTE)),
    ),
};

const rebalance: Scenario = {
  name: "rebalance",
  summary: "an instance joins (and leaves 90 s later); queues move while their last 5 s of offsets are uncommitted",
  groups: [ORDER],
  plan: (p, keys) => {
    for (const count of episodes(keys, 24)) {
      const joinAt = p.slot(ORDER, 150 * SECOND) + 15 * SECOND;
      for (let i = 0; i < count; i++) {
        // Most land in the 5 s whose offsets are not yet persisted; some are being consumed as the queues move.
        const offset = p.rng.weighted([
          [-p.rng.int(300, 4500), 0.6],
          [p.rng.int(-250, 30), 0.2],
          [p.rng.int(0, 10_000), 0.2],
        ] as const);
        p.send(ORDER, joinAt + offset, p.key(ORDER));
      }
      p.scaleOut(ORDER, joinAt, 90 * SECOND);
    }
  },
};

const ackLost: Scenario = {
  name: "ack_lost",
  summary: "an instance is killed (or its host dies) after consuming, before its offsets were persisted",
  groups: [ORDER],
  plan: (p, keys) => {
    for (const count of episodes(keys, 24)) {
      const kill = p.rng.chance(0.6);
      const crashAt = p.slot(ORDER, kill ? 150 * SECOND : 420 * SECOND) + 15 * SECOND;
      for (let i = 0; i < count; i++) p.send(ORDER, crashAt - p.rng.int(50, 4500), p.key(ORDER));
      const restartAfter = kill ? p.rng.int(30 * SECOND, 60 * SECOND) : p.rng.int(200 * SECOND, 300 * SECOND);
      p.crash(ORDER, crashAt, kill ? "kill" : "host_down", restartAfter);
    }
  },
};

const offsetRollback: Scenario = {
  name: "offset_rollback",
  summary: "an operator resets the group's offsets 60–120 s back while it runs (resetOffsetByTime): all since is consumed again",
  groups: [ORDER],
  plan: (p, keys) => {
    for (const count of episodes(keys, 24)) {
      const resetAt = p.slot(ORDER, 150 * SECOND) + 15 * SECOND;
      const backMs = p.rng.int(60 * SECOND, 120 * SECOND);
      for (let i = 0; i < count; i++) p.send(ORDER, resetAt - p.rng.int(2 * SECOND, backMs - 5 * SECOND), p.key(ORDER));
      p.resetOffset(ORDER, resetAt, backMs);
    }
  },
};

const sharedClientId: Scenario = {
  name: "shared_client_id",
  summary: "two processes join on one machine with one instanceName, so one clientId: both consume the same queues (30 %: distinct clientIds)",
  groups: [ORDER],
  plan: (p, keys) => {
    for (const [n, count] of episodes(keys, 24).entries()) {
      // Every other pair has been running for hours when its keys come, as long-running consumers are: their connect
      // lines are older than a short raw-event retention keeps (eval:diagnosis -- --raw-retention 1h).
      const leadMs = n % 2 === 1 ? p.rng.int(2 * HOUR, 4 * HOUR) : 0;
      const joinAt = p.slot(ORDER, 150 * SECOND + leadMs) + 15 * SECOND;
      const stayMs = leadMs + p.rng.int(80 * SECOND, 100 * SECOND);
      // The hard negative: two pods on one host, each with its own clientId.
      p.pair(ORDER, joinAt, stayMs, p.rng.chance(0.7) ? "order-paid-consumer" : undefined);
      for (let i = 0; i < count; i++) p.send(ORDER, joinAt + leadMs + p.rng.int(30 * SECOND, stayMs - leadMs - 15 * SECOND), p.key(ORDER));
    }
  },
};

const broadcastConsumption: Scenario = {
  name: "broadcast_consumption",
  summary: "cg_config_cache (BROADCASTING, 2 instances) consumes every config change on every instance, by design; cg_config_audit reads the same topic clustered",
  groups: ["cg_config_cache"],
  plan: (p, keys) => eachKey(p, keys, "cg_config_cache", (g, key, at) => p.send(g, at, key)),
};

const consumeTimeout: Scenario = {
  name: "consume_timeout",
  summary: "a consume call hangs past consumeTimeout (15 min): sent back, the retry copy comes 10 s later",
  groups: ["cg_coupon"],
  plan: (p, keys) =>
    eachKey(p, keys, "cg_coupon", (g, key, at) => {
      p.behave(g, key, { stuckMs: p.rng.int(20 * SECOND, 10 * MINUTE) });
      p.send(g, at, key);
    }),
};

const retryAfterFailure: Scenario = {
  name: "retry_after_failure",
  summary: "the side effect committed, then a later step threw: the retry runs the business again",
  groups: [ORDER],
  plan: (p, keys) =>
    eachKey(p, keys, ORDER, (g, key, at) => {
      p.behave(g, key, { failures: 1, failMode: "after_effect" });
      p.send(g, at, key);
    }),
};

const dlqReplay: Scenario = {
  name: "dlq_replay",
  summary: "17 clean failures dead-letter the message; it is resent from the dashboard, then resent again",
  groups: [ORDER],
  plan: (p, keys) =>
    eachKey(p, keys, ORDER, (g, key, at) => {
      const first = p.rng.int(20 * MINUTE, 180 * MINUTE);
      p.behave(g, key, { failures: 17, failMode: "clean", dlqReplaysMs: [first, first + p.rng.int(MINUTE, 40 * MINUTE)] });
      p.send(g, at, key);
    }),
};

const delayedDoubleWrite: Scenario = {
  name: "delayed_double_write",
  summary: "a broker restarts; delayed messages delivered since its last delay-offset persist are delivered again",
  groups: ["cg_fulfil"],
  plan: (p, keys) => {
    for (const count of episodes(keys, 30)) {
      const restartAt = p.slot("brokers", 240 * SECOND) + 40 * SECOND;
      const broker = p.rng.pick(BROKER_NAMES);
      for (let i = 0; i < count; i++) {
        const level = p.rng.pick([2, 3, 4]);
        const dueAt = restartAt - p.rng.int(100, 12_000);
        const other = BROKER_NAMES.find((b) => b !== broker) ?? broker;
        p.send("cg_fulfil", dueAt - delayOfLevel(level), p.key("cg_fulfil"), { delayLevel: level, broker: p.rng.chance(0.8) ? broker : other });
      }
      p.restartBroker(broker, restartAt, p.rng.int(15 * SECOND, 40 * SECOND));
    }
  },
};

const transactionCheckback: Scenario = {
  name: "transaction_checkback",
  summary: "a transactional commit's op record is lost; the check-back commits the half message again",
  groups: ["cg_fulfil"],
  plan: (p, keys) =>
    eachKey(p, keys, "cg_fulfil", (g, key, at) => {
      const transaction = p.rng.weighted([
        ["commit_twice", 0.65],
        ["unknown_then_commit", 0.2],
        ["commit", 0.15],
      ] as const);
      p.send(g, at, key, { transaction });
    }),
};

const keyNotBusinessKey: Scenario = {
  name: "dedup_key_not_business_key",
  summary: "cg_points keys its Redis marker on msgId: upstream resends (new msgId) pass, producer retries are caught",
  groups: ["cg_points"],
  plan: (p, keys) =>
    eachKey(p, keys, "cg_points", (g, key, at) => {
      if (p.rng.chance(0.7)) sendTwice(p, g, key, at, p.rng.logUniformMs(2 * SECOND, 3 * MINUTE));
      else p.send(g, at, key, { attempts: ["ack_lost", "ok"] });
    }),
};

const markerExpired: Scenario = {
  name: "marker_expired",
  summary: "cg_ledger's Redis marker lives 30 s and nothing durable is behind it: later resends pass",
  groups: ["cg_ledger"],
  plan: (p, keys) => eachKey(p, keys, "cg_ledger", (g, key, at) => sendTwice(p, g, key, at, p.rng.logUniformMs(5 * SECOND, 5 * MINUTE))),
};

const nonAtomicCheck: Scenario = {
  name: "non_atomic_check",
  summary: "cg_stock does GET then SET after the business: two copies consumed within ms on two instances both pass",
  groups: ["cg_stock"],
  plan: (p, keys) =>
    eachKey(p, keys, "cg_stock", (g, key, at) => {
      if (p.rng.chance(0.75)) p.send(g, at, key, { attempts: ["not_ok", "ok"], notOkMs: [1, 15] });
      else p.send(g, at, key, { attempts: ["ack_lost", "ok"], ackLostMs: [300, 2900] });
    }),
};

const markerNotReleased: Scenario = {
  name: "marker_not_released",
  summary: "cg_reward does not delete its marker after a failure: the retry is skipped and the business never runs",
  groups: ["cg_reward"],
  plan: (p, keys) =>
    eachKey(p, keys, "cg_reward", (g, key, at) => {
      if (p.rng.chance(0.7)) p.behave(g, key, { failures: 1, failMode: "clean" });
      p.send(g, at, key);
    }),
};

const asyncAck: Scenario = {
  name: "async_ack",
  summary: "cg_push acks at once and runs the business 1.5–12 s later, setting its marker only then",
  groups: ["cg_push"],
  plan: (p, keys) =>
    eachKey(p, keys, "cg_push", (g, key, at) => {
      if (p.rng.chance(0.75)) p.send(g, at, key, { attempts: ["ack_lost", "ok"], ackLostMs: [1000, 2900] });
      else p.send(g, at, key);
    }),
};

const noDurableLayer: Scenario = {
  name: "no_durable_layer",
  summary: "cg_sms relies on a Redis without persistence; it restarts and resends that follow pass",
  groups: ["cg_sms"],
  plan: (p, keys) => {
    for (const count of episodes(keys, 20)) {
      const restartAt = p.slot("cg_sms", 200 * SECOND) + 100 * SECOND;
      for (let i = 0; i < count; i++) {
        const first = restartAt - p.rng.int(SECOND, 90 * SECOND);
        const again = p.rng.chance(0.8) ? restartAt + p.rng.int(SECOND, 60 * SECOND) : first + p.rng.int(500, restartAt - first - 200);
        sendTwice(p, "cg_sms", p.key("cg_sms"), first, again - first);
      }
      p.restartRedis("cg_sms", restartAt);
    }
  },
};

/** Lane scenarios first: `spread` then covers the time their episodes take. */
export const SCENARIOS: readonly Scenario[] = [
  rebalance,
  ackLost,
  offsetRollback,
  sharedClientId,
  broadcastConsumption,
  delayedDoubleWrite,
  noDurableLayer,
  producerRetry,
  upstreamResend,
  consumeTimeout,
  retryAfterFailure,
  dlqReplay,
  transactionCheckback,
  normalRetry,
  keyNotBusinessKey,
  markerExpired,
  nonAtomicCheck,
  markerNotReleased,
  asyncAck,
  clean,
];

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

export function scenarioNames(): string[] {
  return SCENARIOS.map((s) => s.name);
}

/** Share of an `all` run's keys that is plain background traffic, spread over every group. */
const BACKGROUND_SHARE = 0.6;
// The passive groups on shared topics get their traffic through the group beside them; the config topic has a
// scenario of its own, so background traffic leaves it alone.
const BACKGROUND_WEIGHTS: readonly (readonly [string, number])[] = GROUPS.filter((g) => !["cg_search_index", "cg_config_audit", "cg_config_cache"].includes(g.name)).map(
  (g) => [g.name, g.name === ORDER ? 4 : 0.75] as const,
);

/** `all`: every scenario with an equal share, plus clean background traffic on every group. */
export const ALL: Scenario = {
  name: "all",
  summary: "every scenario mixed with clean background traffic on every group",
  groups: GROUPS.map((g) => g.name),
  plan: (p, keys) => {
    const background = Math.round(keys * BACKGROUND_SHARE);
    const faulty = SCENARIOS.filter((s) => s !== clean);
    const rest = keys - background;
    faulty.forEach((scenario, i) => {
      const share = Math.floor((rest * (i + 1)) / faulty.length) - Math.floor((rest * i) / faulty.length);
      if (share > 0) scenario.plan(p, share);
    });
    for (let i = 0; i < background; i++) {
      const group = p.rng.weighted(BACKGROUND_WEIGHTS);
      p.send(group, p.spread(), p.key(group));
    }
  },
};
