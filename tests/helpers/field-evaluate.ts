/**
 * The field corpus through the registry's parsers: per format and per template, relevant lines recognised and
 * fields right, negative controls that became rebalances, and every line that failed. `npm run eval:field` prints it;
 * a unit test holds it to its thresholds.
 */
import { findFormat } from "../../collectors/registry.ts";
import { findTimestamp } from "../../collectors/codecs/timestamp.ts";
import { ROCKETMQ_UTC_OFFSET } from "../../collectors/rocketmq-client-log/parse.ts";
import type { NormalizedEvent } from "../../lib/events/model.ts";
import { loadFieldCorpus, type FieldCase } from "./field-corpus.ts";

const CORPUS_DATE = "2026-11-30";
const INPUT_TIME = Date.parse(`${CORPUS_DATE}T00:00:00Z`);

interface Outcome {
  field: FieldCase;
  events: NormalizedEvent[];
  issues: string[];
}

function run(field: FieldCase): Outcome {
  const format = findFormat(field.format);
  if (!format) return { field, events: [], issues: [`unknown format ${field.format}`] };
  const parser = format.open({ source: `field:${field.id}`, date: CORPUS_DATE, inputTime: INPUT_TIME });
  const events: NormalizedEvent[] = [];
  const issues: string[] = [];
  // A stored trace message always has its store time; the corpus keeps only the bodies.
  const input = field.format === "rocketmq-trace" ? [JSON.stringify({ bornHost: "10.0.0.1:5000", body: field.text, storeTimestamp: INPUT_TIME })] : field.text.split("\n");
  input.forEach((line, i) => {
    if (line.trim() === "") return;
    const result = parser.line(line, i + 1);
    events.push(...result.events);
    if (result.issue) issues.push(`${result.issue.code}: ${result.issue.reason}`);
  });
  const last = parser.end();
  events.push(...last.events);
  if (last.issue) issues.push(`${last.issue.code}: ${last.issue.reason}`);
  return { field, events, issues };
}

const DEFAULT_OFFSET: Record<string, string> = {
  "rocketmq-client-log": ROCKETMQ_UTC_OFFSET,
  "rocketmq-broker-log": ROCKETMQ_UTC_OFFSET,
};

/** The instant the printed time names, read independently of the parsers: epoch numbers, or a wall clock in the format's default zone. */
function expectedTimes(field: FieldCase, text: string): { ts: number; timeOfDayOnly: boolean } | undefined {
  if (/^\d{9,10}(?:\.\d+)?$/.test(text)) return { ts: Math.floor(Number(text) * 1000), timeOfDayOnly: false };
  if (/^\d{13}$/.test(text)) return { ts: Number(text), timeOfDayOnly: false };
  const found = findTimestamp(text, { utcOffset: DEFAULT_OFFSET[field.format] ?? "Z", date: CORPUS_DATE });
  if (!found?.ok) return undefined;
  return { ts: found.time.ts, timeOfDayOnly: found.time.dateFrom !== undefined };
}

/** What an event says happened: the log templates' action, a trace record's type. */
const actionOf = (e: NormalizedEvent) => e.detail.action ?? e.detail.traceRecord;

type Check = { name: string; ok: boolean; got: unknown; want: unknown };

const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));

function fieldChecks(field: FieldCase, matched: NormalizedEvent[]): Check[] {
  const expect = field.expect;
  if (!("action" in expect)) return [];
  const first = matched[0]!;
  const checks: Check[] = [];
  const check = (name: string, got: unknown, want: unknown, ok = JSON.stringify(got) === JSON.stringify(want)) => checks.push({ name, ok, got, want });
  const detail = (key: string) => first.detail[key];
  if (expect.time !== undefined) {
    const want = expectedTimes(field, expect.time);
    if (want) {
      const got = first.ts;
      const ok = want.timeOfDayOnly ? got % 86_400_000 === ((want.ts % 86_400_000) + 86_400_000) % 86_400_000 : Math.abs(got - want.ts) < 1;
      check("time", new Date(got).toISOString(), new Date(want.ts).toISOString(), ok);
    }
  }
  if (expect.group !== undefined) check("group", first.group ?? str(detail("producerGroup")), expect.group);
  if (expect.topic !== undefined) check("topic", matched.find((e) => e.topic !== null)?.topic ?? null, expect.topic);
  if (expect.partitions !== undefined) {
    const got = [...new Set(matched.flatMap((e) => (e.queue === null ? [] : [e.queue])))].sort();
    check("partitions", got, [...expect.partitions].sort());
  }
  if (expect.queues !== undefined) {
    const listed = Array.isArray(detail("queues")) ? (detail("queues") as string[]) : [];
    const got = [...new Set([...matched.flatMap((e) => (e.queue === null ? [] : [e.queue])), ...listed])].sort();
    check("queues", got, [...expect.queues].sort());
  }
  if (expect.clientId !== undefined) check("clientId", str(detail("clientId")) ?? str(detail("instanceRaw")) ?? str(detail("clientProvidedName")), expect.clientId);
  if (expect.msgId !== undefined) check("msgId", first.msgId, expect.msgId);
  if (expect.generation !== undefined) check("generation", detail("generationId"), expect.generation);
  if (expect.memberId !== undefined) check("memberId", detail("memberId"), expect.memberId);
  if (expect.connection !== undefined) check("connection", detail("connection"), expect.connection);
  if (expect.channel !== undefined) check("channel", detail("channel"), expect.channel);
  if (expect.consumerTag !== undefined) check("consumerTag", detail("consumerTag"), expect.consumerTag);
  if (expect.vhost !== undefined) check("vhost", detail("vhost"), expect.vhost);
  if (expect.user !== undefined) check("user", detail("user"), expect.user);
  if (expect.timeoutMs !== undefined) check("timeoutMs", detail("timeoutMs"), expect.timeoutMs);
  if (expect.heartbeatTimeoutS !== undefined) check("heartbeatTimeoutS", detail("heartbeatTimeoutS"), expect.heartbeatTimeoutS);
  if (expect.queueOffset !== undefined) check("queueOffset", first.queueOffset, expect.queueOffset);
  if (expect.retryTimes !== undefined) check("retryTimes", first.retryTimes, expect.retryTimes);
  if (expect.exception !== undefined) {
    const got = str(detail("exception"));
    check("exception", got, expect.exception, got !== undefined && (got === expect.exception || expect.exception.endsWith(`.${got}`) || got.endsWith(`.${expect.exception}`)));
  }
  return checks;
}

export interface Tally {
  relevant: number;
  recognized: number;
  fieldsChecked: number;
  fieldsRight: number;
}

const newTally = (): Tally => ({ relevant: 0, recognized: 0, fieldsChecked: 0, fieldsRight: 0 });

export interface FieldEvaluation {
  lines: number;
  sources: number;
  total: Tally;
  byFormat: Map<string, Tally>;
  byTemplate: Map<string, Tally>;
  negatives: number;
  negativesAsRebalance: number;
  negativesWithEvents: number;
  failures: string[];
}

/** `root`: another corpus of the same layout (the blind batch, tests/fixtures/field-blind/); default the field corpus. */
export function evaluateFieldCorpus(root?: string): FieldEvaluation {
  const corpus = loadFieldCorpus(root);
  const byFormat = new Map<string, Tally>();
  const byTemplate = new Map<string, Tally>();
  const failures: string[] = [];
  let negatives = 0;
  let negativesAsRebalance = 0;
  let negativesWithEvents = 0;
  const total = newTally();

  for (const field of corpus) {
    const outcome = run(field);
    const expect = field.expect;
    const where = `${field.file}:${field.lineInFile}`;
    if ("negative" in expect) {
      negatives++;
      if (outcome.events.some((e) => e.kind === "rebalance")) {
        negativesAsRebalance++;
        failures.push(`${where} negative control became a rebalance (${expect.negative}): ${field.text.slice(0, 160)}`);
      }
      if (outcome.events.length > 0) negativesWithEvents++;
      continue;
    }
    if (!("action" in expect)) continue;
    const tallies = [total, getOr(byFormat, field.format), getOr(byTemplate, `${field.format} ${expect.action}`)];
    for (const t of tallies) t.relevant++;
    const matched = outcome.events.filter((e) => actionOf(e) === expect.action);
    if (matched.length === 0) {
      const got = outcome.events.map((e) => `${e.kind}/${String(actionOf(e))}`).join(", ") || (outcome.issues.join("; ") || "nothing");
      failures.push(`${where} not recognised as ${expect.action} (got ${got}): ${field.text.slice(0, 200).replace(/\n/g, "⏎")}`);
      continue;
    }
    for (const t of tallies) t.recognized++;
    const checks = fieldChecks(field, matched);
    for (const t of tallies) {
      t.fieldsChecked += checks.length;
      t.fieldsRight += checks.filter((c) => c.ok).length;
    }
    for (const c of checks.filter((c) => !c.ok)) failures.push(`${where} ${expect.action}: ${c.name} is ${JSON.stringify(c.got)}, want ${JSON.stringify(c.want)}`);
  }

  return { lines: corpus.length, sources: new Set(corpus.map((c) => c.source)).size, total, byFormat, byTemplate, negatives, negativesAsRebalance, negativesWithEvents, failures };
}

function getOr(map: Map<string, Tally>, key: string): Tally {
  let t = map.get(key);
  if (!t) map.set(key, (t = newTally()));
  return t;
}

