import { defaultInstance } from "./instance.ts";
import { orderProblem } from "./order.ts";
import { BROKERS, DedupLogError, formatDedupLine, lineProblems, type Broker, type DedupDecision, type DedupLayer, type DedupLine } from "./record.ts";
import { openSink, type DedupLogTarget } from "./sink.ts";
import { isUniqueViolation } from "./unique.ts";

/**
 * The dedup log a consumer writes (docs/dedup-log.md): one log per consumer process and group, one Delivery per
 * message it handles. Each layer helper asks its layer, writes the decision and returns it; a Delivery refuses a
 * decision that may not follow the previous one (order.ts), so its lines read as the one delivery they are.
 */

export interface DedupLogOptions {
  /** Consumer group (RocketMQ, Kafka); for RabbitMQ the queue consumed, as dupscope's RabbitMQ collector names it. */
  group: string;
  /** Which broker delivers the messages: the log cannot tell, and dupscope reads a line without it as RocketMQ. */
  broker: Broker;
  /** The consumer process; default `ip@pid` (defaultInstance()). RabbitMQ: rabbitmqInstance(channel). */
  instance?: string | undefined;
  /** Default topic of every line. */
  topic?: string | undefined;
  /**
   * Where lines go: a file path or URL (appended to synchronously, the folder created), a stream (`write(line +
   * "\n")`), or a function given each line without its newline. Default: standard output.
   */
  write?: DedupLogTarget | undefined;
  /** Epoch milliseconds of each decision; default Date.now. */
  clock?: (() => number) | undefined;
  /**
   * Called when writing a line fails (a full disk, a closed stream). The dedup log never throws into the consumer
   * for that: a layer that has set its marker must still hand the answer back. Default: a process warning.
   */
  onError?: ((error: unknown, line: string) => void) | undefined;
}

/** What is known about the message being handled; every line of the delivery carries it. */
export interface DeliveryContext {
  /** The business key (order id, payment id): dupscope groups everything by it. */
  bizKey: string;
  /** RocketMQ msgId (UNIQ_KEY), RabbitMQ `message_id`; Kafka: leave it out. */
  msgId?: string | undefined;
  topic?: string | undefined;
  /** RocketMQ reconsumeTimes; RabbitMQ `x-delivery-count` when the queue provides it. */
  retryTimes?: number | undefined;
  /** RocketMQ `brokerName:queueId`, Kafka `topic-partition`, RabbitMQ the queue name. */
  queueId?: string | number | undefined;
  /** RocketMQ queue offset, Kafka record offset. */
  queueOffset?: number | undefined;
  /** Overrides the log's instance for this delivery (a RabbitMQ consumer with several channels). */
  instance?: string | undefined;
}

/** A plain line for code that runs its own layers: the log's group, instance, broker and topic fill what is left out. */
export type DedupLogRecord = Omit<DedupLine, "ts" | "group" | "instance"> & { ts?: number | undefined; group?: string | undefined; instance?: string | undefined };

/** The per-line fields of a decision within a delivery. */
export interface DecisionFields {
  layer: DedupLayer;
  decision: DedupDecision;
  dedupKey?: string | undefined;
  ttlMs?: number | undefined;
  error?: string | undefined;
}

/** The two commands of an ioredis-like client the Redis layer uses (ioredis `Redis` and `Cluster` fit as they are). */
export interface RedisMarkerClient {
  set(key: string, value: string, px: "PX", ttlMs: number, nx: "NX"): Promise<"OK" | null>;
  del(key: string): Promise<number>;
}

export interface RedisMarkerOptions {
  /** The marker's key, e.g. `points:<bizKey>`; logged as `dedupKey`. */
  key: string;
  /** Marker lifetime (`PX`); logged as `ttlMs` with the pass. Longer than the broker's longest redelivery window. */
  ttlMs: number;
  /** The value stored; default "1". */
  value?: string | undefined;
}

export interface RedisMarker {
  readonly key: string;
  /** SET NX succeeded: this delivery holds the marker and should run the business. */
  readonly passed: boolean;
  /** The marker was there: the message was already handled; skip it. */
  readonly hit: boolean;
  /**
   * Deletes the marker after a failure, so that the retry can pass, and logs `released`. Only a marker this delivery
   * set is deleted: on a hit it does nothing (the marker is another delivery's). Returns whether it deleted. Before
   * `failed` is written it throws DedupLogUsageError and deletes nothing: a release reads as the end of a failed
   * attempt.
   */
  release(): Promise<boolean>;
}

export interface DbUniqueInsertOptions<T> {
  /** The unique value, e.g. `invoice_dedup:<order id>`; logged as `dedupKey`. */
  dedupKey?: string | undefined;
  /**
   * For an insert that does not throw on a duplicate (`INSERT … ON CONFLICT DO NOTHING`, `INSERT IGNORE`): whether
   * a row went in, e.g. `(r) => r.rowCount === 1`. Without it, success is a pass and only a unique violation a hit.
   */
  inserted?: ((result: T) => boolean) | undefined;
  /** Recognises the driver's duplicate-key error; default isUniqueViolation (PostgreSQL, MySQL, MariaDB, SQLite, Prisma). */
  isUniqueViolation?: ((error: unknown) => boolean) | undefined;
}

export type DbInsertResult<T> = { passed: true; hit: false; value: T } | { passed: false; hit: true; value?: T; error?: unknown };

/** A state check's answer: true, or a count of rows the conditional update changed (`rowCount`), lets it through. */
export type Allowed = boolean | number | null | undefined;

export interface CheckOptions {
  dedupKey?: string | undefined;
  ttlMs?: number | undefined;
}

export interface RunOptions {
  /** On failure, delete the Redis markers this delivery set (logging `released`); default true. */
  release?: boolean | undefined;
}

export interface Delivery {
  readonly context: Readonly<DeliveryContext>;
  /** A layer said `hit`: the delivery is a duplicate to be skipped, and writes no further lines. */
  readonly skipped: boolean;
  /** `SET key value PX ttlMs NX`: logs `pass` (set) or `hit` (already there) for layer `redis`. */
  redisMarker(client: RedisMarkerClient, options: RedisMarkerOptions): Promise<RedisMarker>;
  /**
   * Runs the caller's insert of the dedup row: `pass` when it succeeds, `hit` on a unique violation (which is
   * returned, not thrown). Any other error is thrown as it is, with no line: the layer did not answer.
   */
  dbUniqueInsert<T>(insert: () => T | Promise<T>, options?: DbUniqueInsertOptions<T>): Promise<DbInsertResult<T>>;
  /** A state-machine check (layer `state`): the caller's answer, or a function computing it; `pass` or `hit`. */
  stateCheck(allowed: Allowed, options?: CheckOptions): boolean;
  stateCheck(check: () => Allowed | Promise<Allowed>, options?: CheckOptions): Promise<boolean>;
  /** Any layer's answer (a Bloom filter's "definitely new" is `check("bloom", true)`): `pass` or `hit`. */
  check(layer: Exclude<DedupLayer, "none">, passed: boolean, options?: CheckOptions): boolean;
  /** The business side effect committed. Log it right after the commit. */
  executed(): void;
  /** The business side effect failed; `error` is logged as `String(error)`, cut to 2000 characters. */
  failed(error: unknown): void;
  /** A marker the caller removed itself (a dedup row deleted in its own transaction), after `failed`. */
  released(layer: Exclude<DedupLayer, "none">, options?: { dedupKey?: string | undefined }): void;
  /**
   * Runs the business: `executed` when it returns, otherwise `failed`, then the Redis markers this delivery set
   * are released (unless `release: false`) and the error is thrown again.
   */
  run<T>(effect: () => T | Promise<T>, options?: RunOptions): Promise<T>;
  /** A plain decision line of this delivery; like every line of it, refused when it may not follow the last one. */
  log(fields: DecisionFields): void;
}

export interface DedupLog {
  readonly group: string;
  readonly broker: Broker;
  readonly instance: string;
  /** Starts the lines of one delivery of one message. Throws DedupLogError for a context no line could carry. */
  delivery(context: DeliveryContext): Delivery;
  /** Writes one line as given (the log's group, instance, broker and topic fill what is left out). */
  log(record: DedupLogRecord): void;
  /** Closes the file the log opened (streams and functions are the caller's). */
  close(): void;
}

/** Using a Delivery in an order no diagnosis can read (order.ts): a decision after a hit, `executed` twice, … */
export class DedupLogUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DedupLogUsageError";
  }
}

const reportToWarning = (error: unknown) => {
  process.emitWarning(`dupscope dedup log: a line could not be written: ${describe(error)}`, { code: "DEDUP_LOG_WRITE_FAILED" });
};

function describe(error: unknown): string {
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

/** A timestamp inside the valid range, for checking the other fields of a line before it is written. */
const ANY_VALID_TS = Date.UTC(2026, 0, 1);

/** How many deliveries' last timestamps are kept for ordering their lines; the oldest are forgotten first. */
const MAX_TRACKED_DELIVERIES = 10_000;

function allowedOf(answer: Allowed): boolean {
  return typeof answer === "number" ? answer > 0 : answer === true;
}

/**
 * The options TypeScript requires, checked again when the program runs: plain JavaScript gets no type check, and a
 * log without `broker` would write lines dupscope files as RocketMQ, silently.
 */
function optionProblems(options: unknown): string[] {
  if (options === null || typeof options !== "object") return ["options: must be an object with at least group and broker"];
  const { group, broker } = options as Partial<DedupLogOptions>;
  const problems: string[] = [];
  if (group === undefined || group === null) problems.push("group: is required (the consumer group; RabbitMQ: the queue)");
  if (broker === undefined || broker === null) {
    problems.push(`broker: is required (one of ${BROKERS.join(", ")}): the log cannot tell, and dupscope reads a line without it as rocketmq`);
  }
  return problems;
}

export function createDedupLog(options: DedupLogOptions): DedupLog {
  const missing = optionProblems(options);
  if (missing.length > 0) throw new DedupLogError(missing, "options");
  const group = options.group;
  const broker = options.broker;
  const instance = options.instance ?? defaultInstance();
  const topic = options.topic;
  const clock = options.clock ?? Date.now;
  const onError = options.onError ?? reportToWarning;
  // The log's own fields are checked once, now, rather than on the first message.
  const problems = lineProblems({ ts: ANY_VALID_TS, bizKey: "-", group, instance, broker, topic, layer: "none", decision: "pass" });
  if (problems.length > 0) throw new DedupLogError(problems, "options");
  const sink = openSink(options.write);
  const lastTs = new Map<string, number>();

  /**
   * The clock's time, but strictly after the previous line of the same delivery (same key, group, instance, msgId,
   * retry and queue position). A pass and its executed often fall in one millisecond, and whoever reads the log
   * sorted by time (dupscope's store does, ties broken by an id that is a hash) would otherwise see them in either
   * order. Shifts a line by a millisecond or two at most; a `ts` given by the caller is written as given.
   */
  function stamp(line: Omit<DedupLine, "ts">): { ts: number; commit(): void } {
    const key = JSON.stringify([line.bizKey, line.group, line.instance, line.msgId ?? null, line.retryTimes ?? null, line.queueId ?? null, line.queueOffset ?? null]);
    const now = Math.floor(clock());
    const previous = lastTs.get(key);
    const ts = previous !== undefined && now <= previous ? previous + 1 : now;
    return {
      ts,
      commit() {
        lastTs.delete(key);
        lastTs.set(key, ts);
        // Oldest first: a Map iterates in insertion order, and an updated key was re-inserted.
        if (lastTs.size > MAX_TRACKED_DELIVERIES) lastTs.delete(lastTs.keys().next().value!);
      },
    };
  }

  /** Formats (which may throw DedupLogError: the caller's mistake) and writes (which never throws). */
  function emit(line: Omit<DedupLine, "ts"> & { ts?: number | undefined }): void {
    const stamped = line.ts === undefined ? stamp(line) : null;
    const text = formatDedupLine({ ...line, ts: stamped === null ? (line.ts as number) : stamped.ts });
    stamped?.commit();
    try {
      sink.write(text);
    } catch (error) {
      try {
        onError(error, text);
      } catch {
        // An error handler that throws must not turn a logging failure into a consumer failure either.
      }
    }
  }

  function delivery(context: DeliveryContext): Delivery {
    const base = {
      bizKey: context.bizKey,
      msgId: context.msgId,
      group,
      topic: context.topic ?? topic,
      instance: context.instance ?? instance,
      broker,
      retryTimes: context.retryTimes,
      queueId: context.queueId,
      queueOffset: context.queueOffset,
    };
    const contextProblems = lineProblems({ ...base, ts: ANY_VALID_TS, layer: "none", decision: "pass" });
    if (contextProblems.length > 0) throw new DedupLogError(contextProblems);
    return new DeliveryLog(Object.freeze({ ...context }), base, emit);
  }

  return {
    group,
    broker,
    instance,
    delivery,
    log(record) {
      emit({ ...record, group: record.group ?? group, instance: record.instance ?? instance, broker: record.broker ?? broker, topic: record.topic ?? topic });
    },
    close() {
      sink.close();
    },
  };
}

type BaseFields = Omit<DedupLine, "ts" | "layer" | "decision" | "dedupKey" | "ttlMs" | "error">;
type Emit = (line: Omit<DedupLine, "ts">) => void;

class DeliveryLog implements Delivery {
  readonly context: Readonly<DeliveryContext>;
  #base: BaseFields;
  #emit: Emit;
  /** The decision of the last line written: what the next one may be (order.ts). */
  #last: DedupDecision | null = null;
  /** The layers that let this delivery through, in order: `executed` / `failed` carry the last one. */
  #passed: DedupLayer[] = [];
  #markers: RedisMarkerHandle[] = [];

  constructor(context: Readonly<DeliveryContext>, base: BaseFields, emit: Emit) {
    this.context = context;
    this.#base = base;
    this.#emit = emit;
  }

  get skipped(): boolean {
    return this.#last === "hit";
  }

  #assertNext(decision: DedupDecision): void {
    const problem = orderProblem(this.#last, decision);
    if (problem !== null) throw new DedupLogUsageError(`${this.context.bizKey}: ${problem}`);
  }

  log(fields: DecisionFields): void {
    // A line no reader could take is refused for that first, whatever its place in the delivery.
    const problems = lineProblems({ ...this.#base, ...fields, ts: ANY_VALID_TS });
    if (problems.length > 0) throw new DedupLogError(problems);
    this.#assertNext(fields.decision);
    this.#emit({ ...this.#base, ...fields });
    this.#last = fields.decision;
    if (fields.decision === "pass") this.#passed.push(fields.layer);
  }

  /** Checks the fields of a decision before its layer is asked, so that a bad key fails before the marker is set. */
  #precheck(fields: Omit<DecisionFields, "decision">): void {
    const problems = lineProblems({ ...this.#base, ...fields, ts: ANY_VALID_TS, decision: "pass" });
    if (problems.length > 0) throw new DedupLogError(problems);
    // A layer answers pass or hit: both may follow the same decisions.
    this.#assertNext("pass");
  }

  check(layer: Exclude<DedupLayer, "none">, passed: boolean, options: CheckOptions = {}): boolean {
    this.log({ layer, decision: passed ? "pass" : "hit", ...clean(options) });
    return passed;
  }

  async redisMarker(client: RedisMarkerClient, options: RedisMarkerOptions): Promise<RedisMarker> {
    const { key, ttlMs } = options;
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new DedupLogError([`ttlMs: must be a whole number of milliseconds above 0 (got ${String(ttlMs)})`]);
    this.#precheck({ layer: "redis", dedupKey: key, ttlMs });
    const reply = await client.set(key, options.value ?? "1", "PX", ttlMs, "NX");
    const passed = reply !== null;
    if (passed) this.log({ layer: "redis", decision: "pass", dedupKey: key, ttlMs });
    else this.log({ layer: "redis", decision: "hit", dedupKey: key });
    const released: DecisionFields = { layer: "redis", decision: "released", dedupKey: key };
    const marker = new RedisMarkerHandle(key, passed, client, {
      assertReleasable: () => this.#assertNext("released"),
      logReleased: () => this.log(released),
    });
    if (passed) this.#markers.push(marker);
    return marker;
  }

  async dbUniqueInsert<T>(insert: () => T | Promise<T>, options: DbUniqueInsertOptions<T> = {}): Promise<DbInsertResult<T>> {
    const dedupKey = options.dedupKey;
    this.#precheck({ layer: "db", ...clean({ dedupKey }) });
    const isDuplicate = options.isUniqueViolation ?? isUniqueViolation;
    let value: T;
    try {
      value = await insert();
    } catch (error) {
      if (!isDuplicate(error)) throw error;
      this.log({ layer: "db", decision: "hit", ...clean({ dedupKey }) });
      return { passed: false, hit: true, error };
    }
    if (options.inserted !== undefined && !options.inserted(value)) {
      this.log({ layer: "db", decision: "hit", ...clean({ dedupKey }) });
      return { passed: false, hit: true, value };
    }
    this.log({ layer: "db", decision: "pass", ...clean({ dedupKey }) });
    return { passed: true, hit: false, value };
  }

  stateCheck(allowed: Allowed, options?: CheckOptions): boolean;
  stateCheck(check: () => Allowed | Promise<Allowed>, options?: CheckOptions): Promise<boolean>;
  stateCheck(answer: Allowed | (() => Allowed | Promise<Allowed>), options: CheckOptions = {}): boolean | Promise<boolean> {
    if (typeof answer !== "function") return this.check("state", allowedOf(answer), options);
    this.#precheck({ layer: "state", ...clean(options) });
    return Promise.resolve(answer()).then((a) => this.check("state", allowedOf(a), options));
  }

  #lastLayer(): DedupLayer {
    return this.#passed[this.#passed.length - 1] ?? "none";
  }

  executed(): void {
    this.log({ layer: this.#lastLayer(), decision: "executed" });
  }

  failed(error: unknown): void {
    this.log({ layer: this.#lastLayer(), decision: "failed", error: describe(error) });
  }

  released(layer: Exclude<DedupLayer, "none">, options: { dedupKey?: string | undefined } = {}): void {
    this.log({ layer, decision: "released", ...clean(options) });
  }

  async run<T>(effect: () => T | Promise<T>, options: RunOptions = {}): Promise<T> {
    // Refused before the business runs: after a hit it must not, and after an effect line this is a second attempt.
    this.#assertNext("executed");
    let value: T;
    try {
      value = await effect();
    } catch (error) {
      this.failed(error);
      if (options.release ?? true) {
        for (const marker of [...this.#markers].reverse()) {
          // The effect's error is what the caller must see; a marker that cannot be deleted stays, unlogged.
          await marker.release().catch(() => false);
        }
      }
      throw error;
    }
    this.executed();
    return value;
  }
}

interface ReleaseLog {
  /** Throws DedupLogUsageError when the delivery may not write `released` now: checked before the DEL. */
  assertReleasable(): void;
  logReleased(): void;
}

class RedisMarkerHandle implements RedisMarker {
  readonly key: string;
  readonly passed: boolean;
  #client: RedisMarkerClient;
  #log: ReleaseLog;
  #released = false;

  constructor(key: string, passed: boolean, client: RedisMarkerClient, log: ReleaseLog) {
    this.key = key;
    this.passed = passed;
    this.#client = client;
    this.#log = log;
  }

  get hit(): boolean {
    return !this.passed;
  }

  async release(): Promise<boolean> {
    if (!this.passed || this.#released) return false;
    this.#log.assertReleasable();
    await this.#client.del(this.key);
    this.#released = true;
    // Logged after DEL answered: the marker is gone (deleted now, or already expired).
    this.#log.logReleased();
    return true;
  }
}

/** Leaves out options given as undefined, so that `exactOptionalPropertyTypes`-style spreads stay clean. */
function clean<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}
