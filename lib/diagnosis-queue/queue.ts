import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { diagnoseKeyWithReach } from "../diagnosis/diagnose.ts";
import type { Reach } from "../diagnosis/reach.ts";
import type { KeyDiagnosis, Verdict } from "../diagnosis/types.ts";
import { countsAsDuplicate } from "../diagnosis/vocabulary.ts";
import { CONTEXT_AFTER_MS, CONTEXT_BEFORE_MS } from "../diagnosis/scope.ts";
import type { SqlDriver } from "../store/driver.ts";
import { eventLoopTurns } from "../periodic.ts";
import { foldJournal } from "../store/ingest-journal.ts";
import { loadDiagnosisInputs, type StoredDiagnosisInput } from "../queries/diagnosis-input.ts";
import { rawEventsFrom } from "../queries/retention.ts";

/**
 * Keeps the stored verdicts current. Events enqueue their keys by trigger (prisma/migrations/…_diagnosis); this
 * drains the queue: expands keyless events' marks into the keys around them, diagnoses a batch of keys and
 * replaces their rows in key_diagnoses and verdicts. Diagnosis on read (GET /api/v1/keys/…) does not need this;
 * lists, filters and aggregates do.
 */

export interface DiagnosedKey extends Reach {
  input: StoredDiagnosisInput;
  diagnosis: KeyDiagnosis;
}

const uniq = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => v !== null))];

/**
 * The diagnosis of a step's keys gives the server's event loop a turn at least this often: a 1,000-key step is tens
 * of milliseconds of pure computation, and a key page asked for meanwhile (the same process serves it) would wait
 * for all of it, twice with two loops (docs/performance-log.md#30000-eventss-on-a-faster-machine).
 */
const TURN_EVERY_MS = 2;

/** `eventsFrom`: for some keys, the time from which their events are read (loadDiagnosisInputs); others are read whole. */
export async function diagnoseKeys(driver: SqlDriver, bizKeys: string[], eventsFrom?: ReadonlyMap<string, number>): Promise<DiagnosedKey[]> {
  const inputs = await loadDiagnosisInputs(driver, bizKeys, eventsFrom);
  const diagnosed: DiagnosedKey[] = [];
  const turn = eventLoopTurns(TURN_EVERY_MS);
  for (const input of inputs) {
    diagnosed.push({ input, ...diagnoseKeyWithReach(input) });
    await turn();
  }
  return diagnosed;
}

function verdictRow(bizKey: string, v: Verdict, index: number, diagnosis: KeyDiagnosis, { reachTs, quietReachTs }: StoredReach) {
  const start = (id: string) => diagnosis.deliveries.find((d) => d.id === id)?.start ?? 0;
  return {
    id: `${bizKey}#${index}`,
    bizKey,
    group: v.group,
    topic: v.topic,
    cause: v.cause,
    confidence: v.confidence,
    outcome: v.outcome,
    layer: v.layer ?? null,
    defect: v.defect ?? null,
    gapMs: Math.round(v.gapMs),
    gapClass: v.gapClass,
    firstTs: start(v.deliveries[0]),
    secondTs: start(v.deliveries[1]),
    firstInstance: v.instances.first,
    secondInstance: v.instances.second,
    sameInstance: v.sameInstance,
    msgId: v.msgIds.second ?? v.msgIds.first,
    reachTs,
    quietReachTs,
  };
}

interface StoredReach {
  reachTs: number;
  quietReachTs: number;
}

/**
 * The reaches as stored: no later than the end of the key's context (CONTEXT_AFTER_MS past its last event), which is
 * as far as an unbounded reach goes. A later event of the key's own queues it by its key.
 */
function reachTsOf({ input, reach, quietReach }: DiagnosedKey): StoredReach {
  let last = -Infinity;
  for (const e of input.events) if (e.ts > last) last = e.ts;
  return { reachTs: Math.min(reach, last + CONTEXT_AFTER_MS), quietReachTs: Math.min(quietReach, last + CONTEXT_AFTER_MS) };
}

type VerdictRow = ReturnType<typeof verdictRow>;

/**
 * The columns a stored verdict is compared on, in the order `signature` lists a fresh one's values: all but its
 * reaches, which are not part of what the verdict says and are updated in place.
 */
const VERDICT_VALUES = `id, group_name, topic, cause, confidence, outcome, layer, defect, gap_ms, gap_class, first_ts, second_ts,
  first_instance, second_instance, same_instance, msg_id`;

const verdictValues = (v: VerdictRow): unknown[] => [
  v.id, v.group, v.topic, v.cause, v.confidence, v.outcome, v.layer, v.defect, v.gapMs, v.gapClass, v.firstTs, v.secondTs,
  v.firstInstance, v.secondInstance, v.sameInstance, v.msgId,
];

/** A key's verdicts as one string, whatever order they come in: their values sorted by id (each key's ids are unique). */
function signature(values: unknown[][]): string {
  return JSON.stringify([...values].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)));
}

interface StoredVerdicts extends StoredReach {
  signature: string;
}

/**
 * The stored verdicts of these keys, by key, as signatures, and their reaches; keys without any are absent. A null
 * quiet reach (rows written before it was kept) is the reach.
 */
async function storedVerdicts(driver: SqlDriver, keys: string[]): Promise<Map<string, StoredVerdicts>> {
  const rows = await driver.query<{ biz_key: string; v: unknown[] | string; reach_ts: string | number; quiet_reach_ts: string | number }>(
    `SELECT biz_key, json_build_array(${VERDICT_VALUES}) AS v, reach_ts, COALESCE(quiet_reach_ts, reach_ts) AS quiet_reach_ts FROM verdicts WHERE biz_key = ANY($1::text[])`,
    [keys],
  );
  const byKey = new Map<string, { values: unknown[][] } & StoredReach>();
  for (const row of rows) {
    const values = typeof row.v === "string" ? (JSON.parse(row.v) as unknown[]) : row.v;
    const stored = byKey.get(row.biz_key);
    if (stored) {
      stored.values.push(values);
      stored.reachTs = Math.max(stored.reachTs, Number(row.reach_ts));
      stored.quietReachTs = Math.max(stored.quietReachTs, Number(row.quiet_reach_ts));
    } else byKey.set(row.biz_key, { values: [values], reachTs: Number(row.reach_ts), quietReachTs: Number(row.quiet_reach_ts) });
  }
  return new Map([...byKey].map(([key, { values, reachTs, quietReachTs }]) => [key, { signature: signature(values), reachTs, quietReachTs }]));
}

/**
 * A key's row in key_diagnoses, as saveDiagnoses writes it: the full diagnosis only when it found something. Groups
 * and topics sorted, as the fold writes those of a key delivered once (lib/store/plain-keys.ts).
 */
export function keyRow({ input, diagnosis }: Pick<DiagnosedKey, "input" | "diagnosis">) {
  const ts = input.events.map((e) => e.ts);
  const interesting = diagnosis.duplicates.length > 0 || diagnosis.lost.length > 0;
  return {
    k: input.bizKey,
    g: uniq(input.events.map((e) => e.group)).sort(),
    t: uniq(input.events.map((e) => e.topic)).sort(),
    f: Math.min(...ts),
    l: Math.max(...ts),
    d: diagnosis.duplicates.filter(countsAsDuplicate).length,
    lk: diagnosis.duplicates.filter((v) => v.outcome === "leaked").length,
    lo: diagnosis.lost.length,
    nr: diagnosis.normalRetries.length,
    dj: interesting ? diagnosis : null,
  };
}

export interface SavedDiagnoses {
  /**
   * Keys whose verdicts now reach later than their stored ones did (either reach). Another worker may have expanded
   * the mark of a line stamped in between against the stored reach while this one diagnosed them: they get another
   * pass (processQueueStep). Keys without stored verdicts are left as before the reach: a mark finds no verdict of
   * theirs.
   */
  reachGrew: string[];
}

/**
 * Replaces the stored diagnosis of these keys (statement by statement: PGlite shares one connection). A key whose
 * verdicts come out as they are stored keeps its rows: a rebalance line queues every duplicate of its group's last
 * minutes again (queue.ts, marks), nearly always to the same verdicts, and rewriting them cost a delete, an insert,
 * their rollup and metrics triggers and five indexes each time. It also leaves the metrics' settle time of an unchanged
 * verdict alone (lib/metrics): that time restarts when a verdict changes, not when it is confirmed.
 */
export async function saveDiagnoses(driver: SqlDriver, results: DiagnosedKey[], forgotten: string[] = []): Promise<SavedDiagnoses> {
  const keys = [...results.map((r) => r.input.bizKey), ...forgotten];
  if (keys.length === 0) return { reachGrew: [] };
  // The verdicts table feeds the overview, the duplicates list, alerts and metrics: by-design consumptions stay out.
  const fresh = new Map(
    results.map((r) => {
      const reach = reachTsOf(r);
      return [r.input.bizKey, r.diagnosis.duplicates.flatMap((v, i) => (countsAsDuplicate(v) ? [verdictRow(r.input.bizKey, v, i, r.diagnosis, reach)] : []))];
    }),
  );
  const stored = await storedVerdicts(driver, keys);
  const changed = keys.filter((k) => (stored.get(k)?.signature ?? "[]") !== signature((fresh.get(k) ?? []).map(verdictValues)));
  const changedSet = new Set(changed);
  // Same verdicts, other reaches (the first instance logged again, say): the rows stay, their reaches move.
  const moved: [string, StoredReach][] = [];
  const reachGrew: string[] = [];
  for (const [k, rows] of fresh) {
    const was = stored.get(k);
    const now = rows[0];
    if (now === undefined || was === undefined || (was.reachTs === now.reachTs && was.quietReachTs === now.quietReachTs)) continue;
    if (!changedSet.has(k)) moved.push([k, now]);
    if (was.reachTs < now.reachTs || was.quietReachTs < now.quietReachTs) reachGrew.push(k);
  }
  if (moved.length > 0) {
    await driver.run(`UPDATE verdicts v SET reach_ts = u.r, quiet_reach_ts = u.q FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(k, r, q) WHERE v.biz_key = u.k`, [
      moved.map(([k]) => k),
      moved.map(([, r]) => String(r.reachTs)),
      moved.map(([, r]) => String(r.quietReachTs)),
    ]);
  }
  const replaced = changed.filter((k) => stored.has(k));
  if (replaced.length > 0) await driver.run(`DELETE FROM verdicts WHERE biz_key = ANY($1::text[])`, [replaced]);
  if (forgotten.length > 0) await driver.run(`DELETE FROM key_diagnoses WHERE biz_key = ANY($1::text[])`, [forgotten]);
  const verdicts = changed.flatMap((k) => fresh.get(k) ?? []);
  if (verdicts.length > 0) {
    const col = <T>(pick: (v: VerdictRow) => T) => verdicts.map(pick);
    await driver.run(
      `INSERT INTO verdicts (id, biz_key, group_name, topic, cause, confidence, outcome, layer, defect, gap_ms, gap_class, first_ts, second_ts,
                             first_instance, second_instance, same_instance, msg_id, reach_ts, quiet_reach_ts)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::text[], $9::text[],
                            $10::bigint[], $11::text[], $12::bigint[], $13::bigint[], $14::text[], $15::text[], $16::boolean[], $17::text[], $18::bigint[],
                            $19::bigint[])`,
      [
        col((v) => v.id), col((v) => v.bizKey), col((v) => v.group), col((v) => v.topic), col((v) => v.cause), col((v) => v.confidence),
        col((v) => v.outcome), col((v) => v.layer), col((v) => v.defect), col((v) => String(v.gapMs)), col((v) => v.gapClass),
        col((v) => String(v.firstTs)), col((v) => String(v.secondTs)), col((v) => v.firstInstance), col((v) => v.secondInstance),
        col((v) => v.sameInstance), col((v) => v.msgId), col((v) => String(v.reachTs)), col((v) => String(v.quietReachTs)),
      ],
    );
  }
  if (results.length === 0) return { reachGrew };
  const rows = results.map(keyRow);
  // One JSON document rather than an array per column: a text[] of diagnoses was escaped by node-pg and parsed by
  // PostgreSQL as an array literal before each element was parsed as jsonb (a fifth of a 1,000-key save). A diagnosis
  // that comes out as stored keeps the stored value, already compressed, instead of compressing the same again; a key
  // whose every column comes out as stored keeps its row, and diagnosed_at the time that diagnosis was made: rewritten,
  // each such row was a new version, an index entry and a pass of the rollup trigger, for nothing
  // (docs/performance-log.md#unchanged-diagnoses-left-as-they-are-and-a-cheaper-claim). A row the fold wrote for a key
  // delivered once loses its summary (plain): its key's events are no longer all the summary says, and later ones go
  // to a worker too (lib/store/plain-keys.ts).
  await driver.run(
    `INSERT INTO key_diagnoses (biz_key, groups, topics, first_ts, last_ts, duplicates, leaked, lost, normal_retries, diagnosis, diagnosed_at)
     SELECT k, g, t, f, l, d, lk, lo, nr, dj, now()
       FROM jsonb_to_recordset($1::jsonb) AS u(k text, g text[], t text[], f bigint, l bigint, d int, lk int, lo int, nr int, dj jsonb) ORDER BY k
     ON CONFLICT (biz_key) DO UPDATE SET groups = EXCLUDED.groups, topics = EXCLUDED.topics, first_ts = EXCLUDED.first_ts,
       last_ts = EXCLUDED.last_ts, duplicates = EXCLUDED.duplicates, leaked = EXCLUDED.leaked, lost = EXCLUDED.lost,
       normal_retries = EXCLUDED.normal_retries, diagnosed_at = now(), plain = NULL,
       diagnosis = CASE WHEN key_diagnoses.diagnosis IS NOT DISTINCT FROM EXCLUDED.diagnosis THEN key_diagnoses.diagnosis ELSE EXCLUDED.diagnosis END
     WHERE key_diagnoses.plain IS NOT NULL
        OR (key_diagnoses.groups, key_diagnoses.topics, key_diagnoses.first_ts, key_diagnoses.last_ts, key_diagnoses.duplicates,
            key_diagnoses.leaked, key_diagnoses.lost, key_diagnoses.normal_retries, key_diagnoses.diagnosis)
       IS DISTINCT FROM (EXCLUDED.groups, EXCLUDED.topics, EXCLUDED.first_ts, EXCLUDED.last_ts, EXCLUDED.duplicates,
            EXCLUDED.leaked, EXCLUDED.lost, EXCLUDED.normal_retries, EXCLUDED.diagnosis)`,
    [JSON.stringify(rows)],
  );
  return { reachGrew };
}

export interface QueueStep {
  /** Ingest journal rows folded into the queue, marks and counters (lib/store/ingest-journal.ts). */
  journalFolded: number;
  /** Keys delivered once that the fold wrote the rows of, without the queue (lib/store/plain-keys.ts). */
  keysSettled: number;
  marksExpanded: number;
  keysDiagnosed: number;
}

/** Marks expanded per step: each is one indexed range query. */
const MARKS_PER_STEP = 500;

/** How long a worker's claim on a batch of keys lasts: far longer than a step takes, short enough to recover a crash. */
export const DEFAULT_LEASE_MS = 300_000;

export function diagnosisLeaseMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.DUPSCOPE_DIAGNOSIS_LEASE_MS?.trim();
  if (!raw) return DEFAULT_LEASE_MS;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1000) throw new Error(`DUPSCOPE_DIAGNOSIS_LEASE_MS must be a whole number of ms, at least 1000, got "${raw}"`);
  return value;
}

/** This process as a claimant: host, pid and a random part (a restarted process is another worker). */
export const WORKER_ID = `${hostname()}@${process.pid}#${randomBytes(3).toString("hex")}`;

export interface StepOptions {
  batch?: number;
  worker?: string;
  leaseMs?: number;
  /**
   * How long a key queued by a mark waits before a worker may claim it. Marks come from keyless lines (rebalances,
   * lifecycle), and a busy group logs them every second or so: each one queued every duplicate of the group's last
   * minutes again, so without a wait those keys were diagnosed once per step
   * (docs/performance-log.md#settling-marks-and-a-vacuumed-queue). Marks that come within the wait find the key
   * queued and add nothing. A key's own new events do not wait (foldJournal).
   */
  markSettleMs?: number;
}

/**
 * One step of a worker: folds the ingest journal (the keys and marks new events ask for, and their counters),
 * expands pending marks, then claims up to `batch` queued keys no other worker holds
 * (SKIP LOCKED, for `leaseMs`), diagnoses them, saves the results and only then takes the keys off the queue. A
 * key an event touched meanwhile (dirty) goes back for another pass; a worker that dies leaves its claims to expire,
 * and another worker takes them. No long transaction holds back ingest: the fold is one short transaction and every
 * other statement commits on its own.
 */
export async function processQueueStep(driver: SqlDriver, options: StepOptions = {}): Promise<QueueStep> {
  const { batch = 200, worker = WORKER_ID, leaseMs = DEFAULT_LEASE_MS, markSettleMs = 0 } = options;
  const { rows: journalFolded, keysSettled } = await foldJournal(driver);
  // One statement, so a worker killed between taking marks and queueing their keys cannot lose them. Only keys with a
  // duplicate are queued again, from CONTEXT_BEFORE_MS before its first delivery (a key's context reaches that far
  // before each of its events) up to its key's reach, past which no line changes the diagnosis (lib/diagnosis/reach.ts);
  // a mark none of whose lines gives a queue up (not loud), up to its key's quiet reach (a null one, in rows written
  // before it was kept, is the reach). Without a duplicate no rule reads the context: a key delivered once, or whose
  // message was lost, stays so whatever happened around it, and a line that is one of its own events names it
  // (tests/unit/diagnosis/reach.test.ts). Keys not diagnosed yet are queued already. The keys wait markSettleMs before
  // they can be claimed. A mark without a group (a line without one, context of the keys from its host) queues the
  // keys of every group within reach: verdicts do not keep the hosts of a key's producers. Each mark reads its range
  // of verdicts by index (LATERAL, `OFFSET 0`): joined, the planner hashed the marks and scanned every verdict,
  // 1–1.5 s a step with 3 million of them (docs/performance-log.md#marks-on-a-large-verdicts-table).
  const [expanded] = await driver.query<{ marks: string | number }>(
    `WITH m AS (
       DELETE FROM diagnosis_marks WHERE id IN (SELECT id FROM diagnosis_marks ORDER BY id LIMIT ${MARKS_PER_STEP} FOR UPDATE SKIP LOCKED)
       RETURNING group_name, from_ts, to_ts + $1 AS hi, loud
     ), queued AS (
       INSERT INTO diagnosis_queue (biz_key, enqueued_at)
         SELECT DISTINCT k.biz_key, now() + $2 * interval '1 millisecond' FROM (
           SELECT v.biz_key FROM m CROSS JOIN LATERAL (
             SELECT biz_key FROM verdicts v WHERE m.loud AND v.group_name = m.group_name AND v.reach_ts >= m.from_ts AND v.first_ts <= m.hi OFFSET 0) v
           UNION ALL
           SELECT v.biz_key FROM m CROSS JOIN LATERAL (
             SELECT biz_key FROM verdicts v
              WHERE NOT m.loud AND v.group_name = m.group_name AND COALESCE(v.quiet_reach_ts, v.reach_ts) >= m.from_ts AND v.first_ts <= m.hi OFFSET 0) v
           UNION ALL
           SELECT v.biz_key FROM m CROSS JOIN LATERAL (
             SELECT biz_key FROM verdicts v
              WHERE m.group_name IS NULL AND v.reach_ts >= m.from_ts AND (m.loud OR COALESCE(v.quiet_reach_ts, v.reach_ts) >= m.from_ts) AND v.first_ts <= m.hi
             OFFSET 0) v
         ) k
          ORDER BY 1
       ON CONFLICT (biz_key) DO UPDATE SET dirty = true WHERE diagnosis_queue.claimed_by IS NOT NULL
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM m) AS marks`,
    [CONTEXT_BEFORE_MS, markSettleMs],
  );
  // The keys as an array, not a joined subquery: joined, the planner hashed them and scanned the whole queue for
  // their rows (13–22 ms a 1,000-key claim with 60,000 queued, 8–10 ms as an array;
  // docs/performance-log.md#unchanged-diagnoses-left-as-they-are-and-a-cheaper-claim).
  const claimed = await driver.query<{ biz_key: string; since_ts: string | number | null }>(
    `UPDATE diagnosis_queue SET claimed_by = $1, claimed_until = now() + $2 * interval '1 millisecond', dirty = false
      WHERE biz_key = ANY (ARRAY(SELECT biz_key FROM diagnosis_queue WHERE (claimed_until IS NULL OR claimed_until < now()) AND enqueued_at <= now()
              ORDER BY enqueued_at, biz_key LIMIT ${Math.floor(batch)} FOR UPDATE SKIP LOCKED))
      RETURNING biz_key, since_ts`,
    [worker, leaseMs],
  );
  const keys = claimed.map((r) => r.biz_key).sort();
  try {
    const firsts = await storedFirsts(driver, keys);
    const frozen = await partlyExpired(driver, firsts);
    const live = keys.filter((k) => !frozen.has(k));
    const results = await diagnoseKeys(driver, live, eventsBounds(claimed, firsts));
    const found = new Set(results.map((r) => r.input.bizKey));
    const { reachGrew } = await saveDiagnoses(driver, results, live.filter((k) => !found.has(k)));
    // A line that arrived after these keys were loaded, stamped between their old reach and their new one, queued
    // nothing if another worker expanded its mark before this save: another pass reads it, after the settle wait.
    if (reachGrew.length > 0) {
      await driver.run(
        `UPDATE diagnosis_queue SET dirty = true, enqueued_at = now() + $3 * interval '1 millisecond' WHERE biz_key = ANY($1::text[]) AND claimed_by = $2`,
        [reachGrew, worker, markSettleMs],
      );
    }
    await driver.run(`DELETE FROM diagnosis_queue WHERE biz_key = ANY($1::text[]) AND claimed_by = $2 AND NOT dirty`, [keys, worker]);
  } finally {
    // Whatever is still ours (touched meanwhile, or not diagnosed because of an error) goes back to the queue.
    await driver.run(`UPDATE diagnosis_queue SET claimed_by = NULL, claimed_until = NULL WHERE biz_key = ANY($1::text[]) AND claimed_by = $2`, [keys, worker]).catch(() => {});
  }
  return { journalFolded, keysSettled, marksExpanded: Number(expanded?.marks ?? 0), keysDiagnosed: keys.length };
}

/**
 * Keys in the diagnosis queue, claimed, settling (markSettleMs) or not, for progress reports. A count reads the whole
 * table, bloated by the queue's churn: with a backlog it took ~200 ms, most of a 1,000-key step, so steps do not count.
 */
export async function queuedKeys(driver: SqlDriver): Promise<number> {
  const [row] = await driver.query<{ n: string | number }>(`SELECT count(*) AS n FROM diagnosis_queue`);
  return Number(row?.n ?? 0);
}

/** The first_ts of these keys' stored diagnoses, by key; keys never diagnosed are absent. */
async function storedFirsts(driver: SqlDriver, keys: string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const stored = await driver.query<{ biz_key: string; first_ts: string | number }>(`SELECT biz_key, first_ts FROM key_diagnoses WHERE biz_key = ANY($1::text[])`, [keys]);
  return new Map(stored.map((r) => [r.biz_key, Number(r.first_ts)]));
}

/**
 * Keys whose stored diagnosis began before the oldest partition still kept: some of their raw events are gone. A new
 * event for such a key (a replay a week later, a late dedup line) must not make the worker diagnose what remains
 * and replace the diagnosis made while every event was there, and a key with no events left must not be forgotten:
 * verdicts outlive raw events (DUPSCOPE_RETENTION_VERDICTS). Its page shows the later events beside the stored
 * diagnosis, marked as expired (lib/views/key-report.ts).
 */
async function partlyExpired(driver: SqlDriver, firsts: ReadonlyMap<string, number>): Promise<Set<string>> {
  if (firsts.size === 0) return new Set();
  const from = await rawEventsFrom(driver);
  return new Set([...firsts].filter(([, first]) => from === null || first < from).map(([key]) => key));
}

/**
 * From when each claimed key's events are read: the earlier of the time its queue row keeps (the earliest of the
 * events it was queued for) and its stored diagnosis's first_ts (the earliest of the events diagnosed before). Every
 * event of the key that a fold has seen is one or the other, so nothing it needs is left out, and its probes skip the
 * partitions before (docs/performance-log.md#a-keys-events-from-its-first). An event stored but not folded yet is read
 * when its own fold queues the key again. A key queued for any time (since_ts null) is read whole.
 */
function eventsBounds(claimed: { biz_key: string; since_ts: string | number | null }[], firsts: ReadonlyMap<string, number>): Map<string, number> {
  const bounds = new Map<string, number>();
  for (const { biz_key: key, since_ts } of claimed) {
    if (since_ts === null) continue;
    const first = firsts.get(key);
    bounds.set(key, first === undefined ? Number(since_ts) : Math.min(first, Number(since_ts)));
  }
  return bounds;
}

/**
 * The tables every diagnosed key passes through: a row is inserted, updated by the claim and deleted, so each key
 * leaves dead rows behind. Autovacuum's defaults visit them once a minute at most (and PGlite, the embedded store,
 * never), and in a minute a busy worker leaves hundreds of thousands: the claim's index scan then steps over them
 * (docs/performance-log.md#settling-marks-and-a-vacuumed-queue). SKIP_LOCKED: a table another server is vacuuming is
 * left to it.
 */
export async function vacuumQueueTables(driver: SqlDriver): Promise<void> {
  await driver.exec(`VACUUM (SKIP_LOCKED) diagnosis_queue, ingest_journal, diagnosis_marks`);
}

/** Drains the queue completely, for tests; scripts that report progress step through processQueueStep. */
export async function drainQueue(driver: SqlDriver, batch = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const step = await processQueueStep(driver, { batch });
    total += step.keysDiagnosed;
    if (step.keysDiagnosed === 0 && step.marksExpanded === 0 && step.journalFolded === 0) return total;
  }
}
