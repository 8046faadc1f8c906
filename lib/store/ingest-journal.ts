import type { NormalizedEvent } from "../events/model.ts";
import { PlainKeys, type PlainSummary, type StoredPlain, fromStored, storedPlain } from "../diagnosis/plain.ts";
import { changesHoldings } from "../diagnosis/holdings.ts";
import { changesMembership, SEEN_BUCKET_MS, seesMember } from "../diagnosis/members.ts";
import { givesQueueUp } from "../diagnosis/sources.ts";
import type { SqlDriver, SqlSession } from "./driver.ts";
import { recordMemberLines } from "./group-members.ts";
import { settlePlainKeys } from "./plain-keys.ts";

/**
 * The ingest journal (prisma/migrations/…_ingest_journal): what a batch of newly stored events asks of the rest
 * of the store — keys to diagnose, marks for keyless events, per-source counts, counters, rebalance rollups —
 * written by the writer as one row in the transaction that stores the batch, and folded into the queue, counters
 * and rollups later by the diagnosis workers (foldJournal).
 *
 * Statement triggers on `events` used to do this work inside every write: each batch scanned its transition table
 * three times and upserted the same few counter rows, so concurrent writers queued behind each other's row locks
 * until commit. Now a write is the COPY plus one row, and the fold upserts each counter once per many batches.
 */

/** The fields of one stored event that the fold needs, as JournalBuilder sums them: from the event, or from RETURNING. */
export interface Contribution {
  id: string;
  ts: number;
  bizKey: string | null;
  msgId: string | null;
  group: string | null;
  topic: string | null;
  source: string;
  kind: string;
  /** detail.layer, detail.decision (undefined: no such key) and detail.action, as `detail->>…` reads them. */
  layer: string | null;
  decision: string | null | undefined;
  action: string | null;
  /** A keyless event's detail.keys: the KEYS of the message a client-log line is about, which makes it that key's event. */
  namedKeys: readonly string[];
  /** What tells a key delivered once (lib/diagnosis/plain.ts), for keyed events. */
  instance: string | null;
  queue: string | null;
  queueOffset: number | null;
  retryTimes: number | null;
  requestId: string | null;
  template: string | null;
}

const NO_KEYS: readonly string[] = [];

/** The strings of detail.keys, as selectKeyEvents (lib/diagnosis/deliveries.ts) matches them. */
export function namedKeysOf(keys: unknown): readonly string[] {
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === "string") : NO_KEYS;
}

/** `detail->>'name'`: strings as they are, other JSON values as their text, absent or null as null. */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function contributionOf(e: NormalizedEvent): Contribution {
  const detail = e.detail as Record<string, unknown>;
  return {
    id: e.id,
    ts: e.ts,
    bizKey: e.bizKey,
    msgId: e.msgId,
    group: e.group,
    topic: e.topic,
    source: e.source,
    kind: e.kind,
    layer: textOf(detail.layer),
    decision: Object.hasOwn(detail, "decision") ? textOf(detail.decision) : undefined,
    action: textOf(detail.action),
    namedKeys: e.bizKey === null ? namedKeysOf(detail.keys) : NO_KEYS,
    instance: e.instance,
    queue: e.queue,
    queueOffset: e.queueOffset,
    retryTimes: e.retryTimes,
    requestId: nonEmptyString(detail.requestId),
    template: typeof detail.template === "string" ? detail.template : null,
  };
}

const nonEmptyString = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** Whether 32 lowercase hex digits start at `at`, as formatOfId's pattern asks after the prefix. */
function hex32At(id: string, at: number): boolean {
  if (id.length < at + 32) return false;
  for (let i = at; i < at + 32; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/**
 * Collector ids are "<format>:<32 hex>…" (collectors/record-fingerprint.ts); anything else, including the server's
 * content hashes ("sha256:…"), arrived as a normalized event.
 */
export function formatOfId(id: string): string {
  const format = /^([a-z][a-z0-9-]{0,40}):[0-9a-f]{32}/.exec(id)?.[1];
  return format === undefined || format === "sha256" ? "events" : format;
}

/** Rebalance actions that change who owns a queue; must match OWNERSHIP_ACTIONS in lib/queries/overview.ts. */
const OWNERSHIP_ACTIONS = new Set(["result", "add", "remove", "assign", "revoke", "lost", "dropped_without_result"]);
const DEDUP_KINDS = new Set(["dedup", "business_effect"]);
const SLOT_MS = 10_000;

export interface JournalBatch {
  keys: string[];
  /**
   * The earliest ts of each key's events in the batch, in the order of `keys` (for a key a keyless line names, the
   * line's ts): the queue keeps it, so a worker reads the key's events from there on (lib/diagnosis-queue/queue.ts).
   */
  keysFrom: number[];
  /**
   * msgIds of keyless events (client-log timeouts, transaction check-backs): they belong to that message's keys. The
   * KEYS such a line names go straight into `keys`.
   */
  keylessMsgIds: string[];
  /**
   * Keyless events change the context of the keys around them: [group, from ts, to ts, loud], per group of the keys
   * they touch, or null for lines without a group, which are context of every group's keys from their host. loud:
   * one of the lines gives a queue up (lib/diagnosis/sources.ts givesQueueUp), which can change a key's diagnosis
   * up to its reach; other lines only up to its quiet reach (lib/diagnosis/reach.ts). Absent in rows written before
   * it was kept: loud.
   */
  marks: Mark[];
  /** [source, format, events, max ts] */
  sources: [string, string, number, number][];
  /** [group, layer, decision, count] for dedup decisions and business effects that state one. */
  decisions: [string, string, string | null, number][];
  /** [group, topic, count] of rebalance events. */
  rebalances: [string, string, number][];
  /** [10-second slot, group, topic, count] of ownership changes, for the groups page. */
  slots: [number, string, string, number][];
  /**
   * [index in `keys`, groups, topics, first ts, last ts, the rest of the summary] of the keys whose events in the
   * batch could be of a key delivered once (lib/diagnosis/plain.ts): the fold may settle them without a worker.
   */
  plain: PlainEntry[];
  /**
   * [id, ts] of the lines that may change a group's membership (lib/diagnosis/members.ts) or who holds one of its
   * queues (lib/diagnosis/holdings.ts): the fold reads them again and keeps their changes, which outlive the raw lines.
   * Absent in rows written before it was kept; rows written before holdings were kept list membership lines only.
   */
  members: [string, number][];
}

type PlainEntry = [number, string[], string[], number, number, StoredPlain];

const changesGroupState = (kind: string, action: string | null, group: string | null, bizKey: string | null) =>
  changesMembership(kind, action, group, bizKey) || changesHoldings(kind, action, group, bizKey);
type Mark = [group: string | null, from: number, to: number, loud?: boolean];

function bump<K>(map: Map<string, { key: K; n: number }>, id: string, key: K, by = 1): void {
  const entry = map.get(id);
  if (entry) entry.n += by;
  else map.set(id, { key, n: by });
}

/**
 * Sums a batch's rows into its journal as they come, so a writer keeps the sums rather than a Contribution per row
 * until the batch is stored: thousands of small objects that lived long enough for the garbage collector to copy.
 */
export class JournalBuilder {
  /** key → the earliest ts of its rows */
  private readonly keys = new Map<string, number>();
  private readonly keyless = new Set<string>();
  private readonly marks = new Map<string | null, Mark>();
  /** source → format → [source, format, rows, max ts] */
  private readonly sources = new Map<string, Map<string, [string, string, number, number]>>();
  private readonly decisions = new Map<string, { key: [string, string, string | null]; n: number }>();
  private readonly rebalances = new Map<string, { key: [string, string]; n: number }>();
  private readonly slots = new Map<string, { key: [number, string, string]; n: number }>();
  private readonly plain = new PlainKeys();
  private readonly members: [string, number][] = [];
  /**
   * group, process, hour → the earliest consumer span of them in the batch: a member known from its spans needs one
   * a hour (lib/diagnosis/members.ts, SEEN_BUCKET_MS), where a batch holds thousands.
   */
  private readonly seen = new Map<string, [string, number]>();
  add(r: Contribution): void {
    this.row(r.id, r.ts, r.bizKey, r.msgId, r.group, r.source, r.namedKeys, givesQueueUp(r.kind, r.action, r.queue));
    if (changesGroupState(r.kind, r.action, r.group, r.bizKey)) this.members.push([r.id, r.ts]);
    this.seenSpan(r.id, r.ts, r.kind, r.group, r.instance);
    if (r.bizKey !== null) this.plain.add(r.bizKey, r);
    this.byKind(r);
  }

  /**
   * The same as add(contributionOf(e)), without building a Contribution for the keyless rows whose kind needs none
   * (a keyed row's tells whether its key is delivered once).
   */
  addEvent(e: NormalizedEvent): void {
    const keyless = e.bizKey === null;
    this.row(e.id, e.ts, e.bizKey, e.msgId, e.group, e.source, keyless ? namedKeysOf(e.detail.keys) : NO_KEYS, keyless && givesQueueUp(e.kind, textOf(e.detail.action), e.queue));
    if (keyless && changesGroupState(e.kind, textOf(e.detail.action), e.group, null)) this.members.push([e.id, e.ts]);
    this.seenSpan(e.id, e.ts, e.kind, e.group, e.instance);
    if (e.bizKey === null && !DEDUP_KINDS.has(e.kind) && e.kind !== "rebalance") return;
    const contribution = contributionOf(e);
    if (e.bizKey !== null) this.plain.add(e.bizKey, contribution);
    this.byKind(contribution);
  }

  private seenSpan(id: string, ts: number, kind: string, group: string | null, instance: string | null): void {
    if (!seesMember(id, kind, group, instance)) return;
    const at = `${group}\u0000${instance}\u0000${Math.floor(ts / SEEN_BUCKET_MS)}`;
    const was = this.seen.get(at);
    if (was === undefined || ts < was[1]) this.seen.set(at, [id, ts]);
  }

  private row(id: string, ts: number, bizKey: string | null, msgId: string | null, group: string | null, sourceName: string, namedKeys: readonly string[], loud: boolean): void {
    if (bizKey !== null) this.key(bizKey, ts);
    else {
      if (msgId !== null) this.keyless.add(msgId);
      for (const k of namedKeys) {
        this.key(k, ts);
        this.plain.disqualify(k);
      }
      const mark = this.marks.get(group);
      if (mark) {
        mark[1] = Math.min(mark[1], ts);
        mark[2] = Math.max(mark[2], ts);
        mark[3] ||= loud;
      } else this.marks.set(group, [group, ts, ts, loud]);
    }
    const format = this.formatOf(id);
    // Every row has a source, and a batch one or two, each given as the same string by its parser: a map per
    // source looks them up by strings whose hash is known, where a joined key would be a new string to hash.
    let formats = this.sources.get(sourceName);
    if (formats === undefined) this.sources.set(sourceName, (formats = new Map()));
    const source = formats.get(format);
    if (source) {
      source[2] += 1;
      source[3] = Math.max(source[3], ts);
    } else formats.set(format, [sourceName, format, 1, ts]);
  }

  private key(key: string, ts: number): void {
    const from = this.keys.get(key);
    if (from === undefined || ts < from) this.keys.set(key, ts);
  }

  /** The last collector prefix seen ("rocketmq-trace:"): a batch's ids share it, and checking it needs no regex. */
  private lastPrefix = "";
  private lastFormat = "";

  private formatOf(id: string): string {
    if (this.lastPrefix !== "" && id.startsWith(this.lastPrefix) && hex32At(id, this.lastPrefix.length)) return this.lastFormat;
    const format = formatOfId(id);
    if (format !== "events") {
      this.lastPrefix = `${format}:`;
      this.lastFormat = format;
    }
    return format;
  }

  private byKind(r: Contribution): void {
    if (DEDUP_KINDS.has(r.kind) && r.decision !== undefined) {
      const key: [string, string, string | null] = [r.group ?? "", r.layer ?? "", r.decision];
      bump(this.decisions, JSON.stringify(key), key);
    }
    if (r.kind === "rebalance") {
      const key: [string, string] = [r.group ?? "", r.topic ?? ""];
      bump(this.rebalances, JSON.stringify(key), key);
      if (r.group !== null && r.action !== null && OWNERSHIP_ACTIONS.has(r.action)) {
        const slot: [number, string, string] = [Math.floor(r.ts / SLOT_MS) * SLOT_MS, r.group, r.topic ?? ""];
        bump(this.slots, JSON.stringify(slot), slot);
      }
    }
  }

  /** The journal of the rows added so far; the builder is left as it was, so a retried write can ask again. */
  finish(): JournalBatch {
    const keys = [...this.keys.keys()];
    const index = new Map(keys.map((k, i) => [k, i]));
    return {
      keys,
      keysFrom: [...this.keys.values()],
      keylessMsgIds: [...this.keyless],
      marks: [...this.marks.values()].map((m) => [...m]),
      sources: [...this.sources.values()].flatMap((formats) => [...formats.values()].map(([...s]) => s)),
      decisions: [...this.decisions.values()].map(({ key, n }) => [...key, n]),
      rebalances: [...this.rebalances.values()].map(({ key, n }) => [...key, n]),
      slots: [...this.slots.values()].map(({ key, n }) => [...key, n]),
      plain: this.plain.entries().map(([k, s]): PlainEntry => [index.get(k)!, s.groups, s.topics, s.first, s.last, storedPlain(s)]),
      members: [...this.members, ...this.seen.values()].map(([id, ts]) => [id, ts]),
    };
  }
}

export function journalOf(rows: Iterable<Contribution>): JournalBatch {
  const builder = new JournalBuilder();
  for (const r of rows) builder.add(r);
  return builder.finish();
}

/**
 * The columns a statement that stores events returns (`RETURNING ${RETURNED_CONTRIBUTION}`), so the journal counts
 * the rows it really stored: read back as detail->>… reads them, which contributionOf mirrors.
 */
export const RETURNED_CONTRIBUTION = `id, ts, biz_key, msg_id, group_name, topic, source, kind, detail->>'layer' AS layer,
  detail ? 'decision' AS has_decision, detail->>'decision' AS decision, detail->>'action' AS action,
  CASE WHEN biz_key IS NULL THEN detail->'keys' END AS named_keys, instance, queue, queue_offset, retry_times,
  CASE WHEN jsonb_typeof(detail->'requestId') = 'string' THEN nullif(detail->>'requestId', '') END AS request_id,
  CASE WHEN jsonb_typeof(detail->'template') = 'string' THEN detail->>'template' END AS template`;

export interface ReturnedRow {
  id: string;
  ts: string | number;
  biz_key: string | null;
  msg_id: string | null;
  group_name: string | null;
  topic: string | null;
  source: string;
  kind: string;
  layer: string | null;
  has_decision: boolean;
  decision: string | null;
  action: string | null;
  named_keys: unknown;
  instance: string | null;
  queue: string | null;
  queue_offset: string | number | null;
  retry_times: number | null;
  request_id: string | null;
  template: string | null;
}

export function contributionOfRow(row: ReturnedRow): Contribution {
  return {
    id: row.id,
    ts: Number(row.ts),
    bizKey: row.biz_key,
    msgId: row.msg_id,
    group: row.group_name,
    topic: row.topic,
    source: row.source,
    kind: row.kind,
    layer: row.layer,
    decision: row.has_decision ? row.decision : undefined,
    action: row.action,
    namedKeys: namedKeysOf(typeof row.named_keys === "string" ? JSON.parse(row.named_keys) : row.named_keys),
    instance: row.instance,
    queue: row.queue,
    queueOffset: row.queue_offset === null ? null : Number(row.queue_offset),
    retryTimes: row.retry_times,
    requestId: row.request_id,
    template: row.template,
  };
}

/** Writes the journal row of a batch, in the session (and transaction) that stored it. Nothing stored, nothing written. */
export async function writeJournal(session: SqlSession, journal: JournalBatch): Promise<void> {
  // Every stored row has a source.
  if (journal.sources.length === 0) return;
  const { keys, keysFrom, keylessMsgIds, ...rest } = journal;
  await session.run(`INSERT INTO ingest_journal (keys, keys_from, keyless_msg_ids, batch) VALUES ($1::text[], $2::bigint[], $3::text[], $4::json)`, [
    keys,
    keysFrom.map(String),
    keylessMsgIds,
    JSON.stringify(rest),
  ]);
}

/** Journal rows folded per transaction: enough to merge many batches' counters, few enough to keep it short. */
const FOLD_ROWS = 200;

export interface Fold {
  /** Journal rows folded. */
  rows: number;
  /** Keys delivered once whose rows the fold wrote itself (lib/store/plain-keys.ts). */
  keysSettled: number;
}

/**
 * Folds up to FOLD_ROWS journal rows into the diagnosis queue (or, for keys delivered once, their rows), the marks,
 * ingest_sources, metric_counters and the rebalance rollups, and deletes them, in one transaction: a process killed
 * meanwhile folds nothing, and the rows wait for the next worker. Rows another worker is folding are skipped (SKIP
 * LOCKED), and every upsert runs in one sorted order, so concurrent folds neither block for long nor deadlock.
 */
export async function foldJournal(driver: SqlDriver, limit = FOLD_ROWS): Promise<Fold> {
  return driver.transaction(async (tx) => {
    const taken = await tx.query<TakenRow & { id: string }>(
      `SELECT id, keys, keys_from, keyless_msg_ids, batch, written_at FROM ingest_journal ORDER BY id LIMIT ${Math.floor(limit)} FOR UPDATE SKIP LOCKED`,
    );
    if (taken.length === 0) return { rows: 0, keysSettled: 0 };
    const keysSettled = await applyBatches(tx, taken);
    await tx.run(`DELETE FROM ingest_journal WHERE id = ANY($1::bigint[])`, [taken.map((t) => t.id)]);
    return { rows: taken.length, keysSettled };
  });
}

type TakenRow = {
  keys: string[];
  /** null in rows written before the column was (prisma/migrations/…_queue_events_from): their keys' events may be of any time */
  keys_from: (string | number)[] | null;
  keyless_msg_ids: string[];
  /** `plain` is absent in rows written before it was kept. */
  batch: Omit<JournalBatch, "keys" | "keysFrom" | "keylessMsgIds" | "plain" | "members"> & { plain?: PlainEntry[]; members?: [string, number][] };
  written_at: Date;
};

/**
 * The keys of these rows that only one row names and whose events there could be of a key delivered once, with
 * their summaries; a key of two rows (events in two batches folded together) is left to a worker.
 */
function plainCandidates(taken: TakenRow[], keyless: ReadonlySet<string>): Map<string, PlainSummary> {
  const rows = new Map<string, number>();
  for (const row of taken) for (const k of row.keys) rows.set(k, (rows.get(k) ?? 0) + 1);
  const candidates = new Map<string, PlainSummary>();
  for (const row of taken) {
    for (const [i, groups, topics, first, last, stored] of row.batch.plain ?? []) {
      const key = row.keys[i]!;
      if (rows.get(key) !== 1 || keyless.has(stored[0])) continue;
      candidates.set(key, fromStored({ groups, topics, first, last }, stored));
    }
  }
  return candidates;
}

/** Returns how many keys it settled without the queue. */
async function applyBatches(session: SqlSession, taken: TakenRow[]): Promise<number> {
  /** key → the earliest ts of its new events; null: any time */
  const keys = new Map<string, number | null>();
  const keyless = new Set<string>();
  const marks: Mark[] = [];
  const sources = new Map<string, [string, string, number, number, number]>();
  const decisions = new Map<string, [string, string, string | null, number]>();
  const rebalances = new Map<string, [string, string, number]>();
  const slots = new Map<string, [number, string, string, number]>();
  const members: [string, number][] = [];
  for (const row of taken) {
    members.push(...(row.batch.members ?? []));
    row.keys.forEach((k, i) => {
      const from = row.keys_from === null ? null : Number(row.keys_from[i]);
      const was = keys.get(k);
      keys.set(k, was === undefined ? from : was === null || from === null ? null : Math.min(was, from));
    });
    for (const m of row.keyless_msg_ids) keyless.add(m);
    marks.push(...row.batch.marks);
    const at = new Date(row.written_at).getTime();
    for (const [source, format, n, maxTs] of row.batch.sources) {
      const id = JSON.stringify([source, format]);
      const s = sources.get(id);
      if (s) {
        s[2] += n;
        s[3] = Math.max(s[3], maxTs);
        s[4] = Math.max(s[4], at);
      } else sources.set(id, [source, format, n, maxTs, at]);
    }
    for (const [group, layer, decision, n] of row.batch.decisions) {
      const id = JSON.stringify([group, layer, decision]);
      const d = decisions.get(id);
      if (d) d[3] += n;
      else decisions.set(id, [group, layer, decision, n]);
    }
    for (const [group, topic, n] of row.batch.rebalances) {
      const id = JSON.stringify([group, topic]);
      const r = rebalances.get(id);
      if (r) r[2] += n;
      else rebalances.set(id, [group, topic, n]);
    }
    for (const [slot, group, topic, n] of row.batch.slots) {
      const id = JSON.stringify([slot, group, topic]);
      const s = slots.get(id);
      if (s) s[3] += n;
      else slots.set(id, [slot, group, topic, n]);
    }
  }
  const cols = <T extends unknown[], V>(rows: T[], i: number, as: (v: T[number]) => V = (v) => v as V) => rows.map((r) => as(r[i]));
  // Before the keys are queued: a worker that diagnoses them reads the groups' members as these lines left them.
  await recordMemberLines(session, members);
  const settled = await settlePlainKeys(session, plainCandidates(taken, keyless));
  for (const k of settled) keys.delete(k);

  // In key order, so folds sharing keys take the queue's row locks in the same order. A key a worker holds is
  // marked dirty, for another pass; one waiting for a mark to settle (lib/diagnosis-queue/queue.ts) waits no longer:
  // its own events are news. A queued key keeps the earliest time it was queued for (null, any time, wins): a worker
  // reads its events from there or from its stored diagnosis's first, whichever is earlier. The keys of another
  // event's msgId are queued for any time: that event is read with their own, whatever its time.
  await session.run(
    `INSERT INTO diagnosis_queue AS q (biz_key, since_ts)
       SELECT k, CASE WHEN bool_or(s IS NULL) THEN NULL ELSE min(s) END FROM (
         SELECT * FROM unnest($1::text[], $2::bigint[]) AS u(k, s)
         UNION ALL
         SELECT e.biz_key, NULL FROM events e WHERE e.msg_id = ANY($3::text[]) AND e.biz_key IS NOT NULL
       ) AS keys GROUP BY k ORDER BY k
     ON CONFLICT (biz_key) DO UPDATE SET dirty = q.dirty OR q.claimed_by IS NOT NULL, enqueued_at = LEAST(q.enqueued_at, EXCLUDED.enqueued_at),
       since_ts = CASE WHEN q.since_ts IS NULL OR EXCLUDED.since_ts IS NULL THEN NULL ELSE LEAST(q.since_ts, EXCLUDED.since_ts) END
       WHERE q.claimed_by IS NOT NULL OR q.enqueued_at > EXCLUDED.enqueued_at
          OR (q.since_ts IS NOT NULL AND (EXCLUDED.since_ts IS NULL OR EXCLUDED.since_ts < q.since_ts))`,
    [[...keys.keys()], [...keys.values()].map((v) => (v === null ? null : String(v))), [...keyless]],
  );
  if (marks.length > 0) {
    await session.run(`INSERT INTO diagnosis_marks (group_name, from_ts, to_ts, loud) SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::boolean[])`, [
      cols(marks, 0), cols(marks, 1), cols(marks, 2), cols(marks, 3, (loud) => loud !== false),
    ]);
  }
  const s = [...sources.values()];
  await session.run(
    `INSERT INTO ingest_sources AS s (source, format, events, max_ts, last_ingested_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::timestamptz[]) ORDER BY 1, 2
     ON CONFLICT (source, format) DO UPDATE SET events = s.events + EXCLUDED.events,
       max_ts = GREATEST(s.max_ts, EXCLUDED.max_ts), last_ingested_at = GREATEST(s.last_ingested_at, EXCLUDED.last_ingested_at)`,
    [cols(s, 0), cols(s, 1), cols(s, 2), cols(s, 3), cols(s, 4, (v) => new Date(v as number))],
  );
  const d = [...decisions.values()];
  const r = [...rebalances.values()];
  if (d.length + r.length > 0) {
    // Labels are canonical jsonb text, as /api/metrics and the alert conditions read them.
    await session.run(
      `INSERT INTO metric_counters AS c (name, labels, value)
         SELECT n, l, sum(v) FROM (
           SELECT 'dedup_decisions' AS n, jsonb_build_object('group', g, 'layer', y, 'decision', dd)::text AS l, v
             FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(g, y, dd, v)
           UNION ALL
           SELECT 'rebalances', jsonb_build_object('group', g, 'topic', t)::text, v
             FROM unnest($5::text[], $6::text[], $7::bigint[]) AS u(g, t, v)
         ) x GROUP BY n, l ORDER BY n, l
       ON CONFLICT (name, labels) DO UPDATE SET value = c.value + EXCLUDED.value`,
      [cols(d, 0), cols(d, 1), cols(d, 2), cols(d, 3), cols(r, 0), cols(r, 1), cols(r, 2)],
    );
  }
  const sl = [...slots.values()];
  if (sl.length > 0) {
    await session.run(
      `INSERT INTO rebalance_rollups AS r (slot, group_name, topic, lines)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[]) AS u(s, g, t, n) ORDER BY g, s, t
       ON CONFLICT (group_name, slot, topic) DO UPDATE SET lines = r.lines + EXCLUDED.lines`,
      [cols(sl, 0), cols(sl, 1), cols(sl, 2), cols(sl, 3)],
    );
  }
  return settled.size;
}
