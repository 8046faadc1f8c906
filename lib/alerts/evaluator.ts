import { logger } from "../log.ts";
import type { SqlDriver } from "../store/driver.ts";
import { acknowledged } from "./acks.ts";
import { conditionSchema, summaryOf, type Condition } from "./conditions.ts";
import { measure, type Measurement } from "./measure.ts";
import { seriesKey, type Labels } from "./labels.ts";
import { GROUP_BY_LABELS } from "./series.ts";
import { transition, type AlertStateName, type Notify, type StoredState } from "./state-machine.ts";

/**
 * One evaluation round: measure every rule per label set of its group_by, apply the state machine to each alert,
 * and store the new state together with the firing history and the notifications it causes, in one statement per
 * alert. The statement applies only if the state row is still the version that was read, so two servers sharing a
 * database (or a round overlapping a restart) cannot announce one change twice; notifications go out later, from
 * the outbox (dispatcher.ts).
 */

export interface RuleOutcome {
  ruleId: string;
  /** The alert's label set within its rule ({} for a rule without group_by). */
  labels: Labels;
  state: AlertStateName;
  notify: Notify;
  value: number | null;
  /** Whether this round moved the stored state (pending, firing, resolved, …): what an open alerts page must show. */
  changed: boolean;
  error?: string;
}

interface RuleRow {
  id: string;
  name: string;
  enabled: boolean;
  condition: unknown;
  group_by: string[];
  for_seconds: number;
  repeat_seconds: number;
  severity: string;
  channel_ids: string[];
  created_at: Date | string;
}

interface StateRow {
  series: string;
  labels: Labels;
  state: AlertStateName;
  active_since: Date | string | null;
  last_notified_at: Date | string | null;
  acked_at: Date | string | null;
  ack_until: Date | string | null;
  version: number;
}

const ms = (v: Date | string | null) => (v === null ? null : new Date(v).getTime());
const ts = (v: number | null) => (v === null ? null : new Date(v).toISOString());

export async function evaluateRules(driver: SqlDriver, now: number = Date.now()): Promise<RuleOutcome[]> {
  const rules = await driver.query<RuleRow>(
    `SELECT id, name, enabled, condition, group_by, for_seconds, repeat_seconds, severity, channel_ids, created_at FROM alert_rules ORDER BY name`,
  );
  const outcomes: RuleOutcome[] = [];
  for (const rule of rules) outcomes.push(...(await evaluateRule(driver, rule, now)));
  return outcomes;
}

async function evaluateRule(driver: SqlDriver, rule: RuleRow, now: number): Promise<RuleOutcome[]> {
  const parsed = conditionSchema.safeParse(rule.condition);
  const condition = parsed.success ? parsed.data : null;
  let measured: Measurement[];
  try {
    if (!parsed.success) throw new Error(`stored condition is invalid: ${parsed.error.message}`);
    const by = GROUP_BY_LABELS.filter((label) => rule.group_by.includes(label));
    // A disabled rule measures as quiet: a firing alert resolves instead of hanging open in the receivers.
    measured = rule.enabled ? await measure(driver, parsed.data, now, ms(rule.created_at) ?? now, by) : [];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.warn({ err: error, rule: rule.name }, "alert rule evaluation failed");
    // The error is stored on every alert of the rule, and on the rule-wide one ('') so a split rule that has no
    // alert yet shows it too; that row goes again once the rule measures.
    await driver.run(`INSERT INTO alert_states (rule_id) VALUES ($1) ON CONFLICT DO NOTHING`, [rule.id]);
    const states = await driver.query<StateRow>(
      `UPDATE alert_states SET last_error = $2, last_eval_at = $3::timestamptz WHERE rule_id = $1 RETURNING series, labels, state`,
      [rule.id, message, ts(now)],
    );
    return states.map((s) => ({ ruleId: rule.id, labels: s.labels, state: s.state, notify: null, value: null, changed: false, error: message }));
  }
  // A rule without group_by always has its one alert, quiet or not; a split rule has one per label set measured.
  const bySeries = new Map(measured.map((m) => [seriesKey(m.labels), m]));
  if (rule.group_by.length === 0 && !bySeries.has("")) bySeries.set("", { labels: {}, value: 0, active: false, keys: [] });
  await driver.run(
    `INSERT INTO alert_states (rule_id, series, labels)
     SELECT $1, series, labels::jsonb FROM unnest($2::text[], $3::text[]) AS measured(series, labels) ON CONFLICT DO NOTHING`,
    [rule.id, [...bySeries.keys()], [...bySeries.values()].map((m) => JSON.stringify(m.labels))],
  );
  const states = await driver.query<StateRow>(
    `SELECT series, labels, state, active_since, last_notified_at, acked_at, ack_until, version FROM alert_states WHERE rule_id = $1 ORDER BY series`,
    [rule.id],
  );
  const outcomes: RuleOutcome[] = [];
  for (const row of states) {
    const m = bySeries.get(row.series);
    if (m === undefined && (row.state === "inactive" || row.state === "resolved")) {
      // A label set that stopped appearing and has nothing open: its history is in alert_firings; the row goes, so
      // the states of a rule split by topic do not grow with every topic it ever saw.
      await driver.run(`DELETE FROM alert_states WHERE rule_id = $1 AND series = $2 AND version = $3`, [rule.id, row.series, row.version]);
      continue;
    }
    outcomes.push(await evaluateSeries(driver, rule, condition, row, m ?? { labels: row.labels, value: 0, active: false, keys: [] }, now));
  }
  return outcomes;
}

async function evaluateSeries(driver: SqlDriver, rule: RuleRow, condition: Condition | null, row: StateRow, m: Measurement, now: number): Promise<RuleOutcome> {
  const prev: StoredState = { state: row.state, activeSince: ms(row.active_since), lastNotifiedAt: ms(row.last_notified_at) };
  let { next, notify } = transition(prev, m.active, now, rule.for_seconds * 1000, rule.repeat_seconds * 1000);
  // Someone is on it: no reminders while the acknowledgement holds. The reminder clock is left as it was, so one
  // goes out as soon as an acknowledgement with an end runs out.
  if (notify === "repeat" && acknowledged(ms(row.acked_at), ms(row.ack_until), now)) ({ next, notify } = { next: prev, notify: null });
  const said = condition !== null ? { summary: summaryOf(condition, m.value, m.labels), condition } : { summary: "", condition: null };
  const applied = await persist(driver, rule, row, next, notify, m, said, now);
  return applied
    ? { ruleId: rule.id, labels: m.labels, state: next.state, notify, value: m.value, changed: next.state !== row.state }
    : { ruleId: rule.id, labels: m.labels, state: row.state, notify: null, value: m.value, changed: false };
}

const SET_STATE = `state = $4, active_since = $5::timestamptz, last_notified_at = $6::timestamptz, last_eval_at = $7::timestamptz,
                   last_value = $8, last_error = NULL, version = alert_states.version + 1`;
const WHERE_STATE = `WHERE rule_id = $1 AND series = $2 AND version = $3`;
/** An acknowledgement is for one firing: it ends when the alert resolves, and a new firing starts without one. */
const CLEAR_ACK = `acked_by = NULL, ack_comment = NULL, acked_at = NULL, ack_until = NULL`;

/** Notifications for the rule's enabled channels, for the firing `f` a CTE above produced. */
const NOTIFY = (event: string) =>
  `n AS (INSERT INTO alert_notifications (firing_id, rule_id, channel_id, event, next_attempt_at)
           SELECT f.id, $1, c.id, '${event}', $7::timestamptz FROM f, alert_channels c WHERE c.id = ANY($9::text[]) AND c.enabled ORDER BY c.id
         RETURNING id)
   SELECT (SELECT count(*) FROM st) AS applied`;

async function persist(
  driver: SqlDriver,
  rule: RuleRow,
  row: StateRow,
  next: StoredState,
  notify: Notify,
  m: Measurement,
  { summary, condition }: { summary: string; condition: Condition | null },
  now: number,
): Promise<boolean> {
  const base = [rule.id, row.series, row.version, next.state, ts(next.activeSince), ts(next.lastNotifiedAt), ts(now), m.value];
  let rows: { applied: string | number }[];
  switch (notify) {
    case null:
      return (await driver.run(`UPDATE alert_states SET ${SET_STATE} ${WHERE_STATE}`, base)) === 1;
    case "firing": {
      const [seq] = await driver.query<{ id: string }>(`SELECT nextval(pg_get_serial_sequence('alert_firings', 'id'))::text AS id`);
      rows = await driver.query(
        `WITH st AS (UPDATE alert_states SET ${SET_STATE}, ${CLEAR_ACK}, firing_id = $10::bigint ${WHERE_STATE} RETURNING rule_id),
              f AS (INSERT INTO alert_firings (id, rule_id, rule_name, severity, summary, condition, labels, value, keys, fired_at)
                      SELECT $10::bigint, $1, $11, $12, $13, $15::jsonb, $16::jsonb, $8, $14::text[], $7::timestamptz FROM st RETURNING id),
              ${NOTIFY("firing")}`,
        [...base, rule.channel_ids, seq!.id, rule.name, rule.severity, summary, m.keys, condition === null ? null : JSON.stringify(condition), JSON.stringify(m.labels)],
      );
      break;
    }
    case "repeat":
      rows = await driver.query(
        `WITH st AS (UPDATE alert_states SET ${SET_STATE} ${WHERE_STATE} RETURNING firing_id),
              f AS (UPDATE alert_firings SET value = $8, summary = $10, keys = $11::text[] WHERE id = (SELECT firing_id FROM st) RETURNING id),
              ${NOTIFY("repeat")}`,
        [...base, rule.channel_ids, summary, m.keys],
      );
      break;
    case "resolved":
      rows = await driver.query(
        `WITH st AS (UPDATE alert_states SET ${SET_STATE}, ${CLEAR_ACK} ${WHERE_STATE} RETURNING firing_id),
              f AS (UPDATE alert_firings SET resolved_at = $7::timestamptz WHERE id = (SELECT firing_id FROM st) RETURNING id),
              ${NOTIFY("resolved")}`,
        [...base, rule.channel_ids],
      );
      break;
  }
  return Number(rows[0]?.applied ?? 0) === 1;
}
