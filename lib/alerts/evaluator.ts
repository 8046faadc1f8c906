import { logger } from "../log.ts";
import type { SqlDriver } from "../store/driver.ts";
import { conditionSchema, summaryOf, type Condition } from "./conditions.ts";
import { measure, type Measurement } from "./measure.ts";
import { transition, type AlertStateName, type Notify, type StoredState } from "./state-machine.ts";

/**
 * One evaluation round: measure every rule, apply the state machine, and store the new state together with the
 * firing history and the notifications it causes, in one statement per rule. The statement applies only if the
 * state row is still the version that was read, so two servers sharing a database (or a round overlapping a
 * restart) cannot announce one change twice; notifications go out later, from the outbox (dispatcher.ts).
 */

export interface RuleOutcome {
  ruleId: string;
  state: AlertStateName;
  notify: Notify;
  value: number | null;
  error?: string;
}

interface RuleRow {
  id: string;
  name: string;
  enabled: boolean;
  condition: unknown;
  for_seconds: number;
  repeat_seconds: number;
  severity: string;
  channel_ids: string[];
  created_at: Date | string;
  state: AlertStateName;
  active_since: Date | string | null;
  last_notified_at: Date | string | null;
  version: number;
}

const ms = (v: Date | string | null) => (v === null ? null : new Date(v).getTime());
const ts = (v: number | null) => (v === null ? null : new Date(v).toISOString());


export async function evaluateRules(driver: SqlDriver, now: number = Date.now()): Promise<RuleOutcome[]> {
  await driver.run(`INSERT INTO alert_states (rule_id) SELECT id FROM alert_rules ON CONFLICT DO NOTHING`);
  const rules = await driver.query<RuleRow>(
    `SELECT r.id, r.name, r.enabled, r.condition, r.for_seconds, r.repeat_seconds, r.severity, r.channel_ids, r.created_at,
            s.state, s.active_since, s.last_notified_at, s.version
       FROM alert_rules r JOIN alert_states s ON s.rule_id = r.id ORDER BY r.name`,
  );
  const outcomes: RuleOutcome[] = [];
  for (const rule of rules) outcomes.push(await evaluateRule(driver, rule, now));
  return outcomes;
}

async function evaluateRule(driver: SqlDriver, rule: RuleRow, now: number): Promise<RuleOutcome> {
  const prev: StoredState = { state: rule.state, activeSince: ms(rule.active_since), lastNotifiedAt: ms(rule.last_notified_at) };
  const parsed = conditionSchema.safeParse(rule.condition);
  let measured: Measurement;
  try {
    if (!parsed.success) throw new Error(`stored condition is invalid: ${parsed.error.message}`);
    // A disabled rule measures as quiet: a firing alert resolves instead of hanging open in the receivers.
    measured = rule.enabled ? await measure(driver, parsed.data, now, ms(rule.created_at) ?? now) : { value: 0, active: false, keys: [] };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.warn({ err: error, rule: rule.name }, "alert rule evaluation failed");
    await driver.run(`UPDATE alert_states SET last_error = $2, last_eval_at = $3::timestamptz WHERE rule_id = $1`, [rule.id, message, ts(now)]);
    return { ruleId: rule.id, state: rule.state, notify: null, value: null, error: message };
  }
  const { next, notify } = transition(prev, measured.active, now, rule.for_seconds * 1000, rule.repeat_seconds * 1000);
  const said = parsed.success ? { summary: summaryOf(parsed.data, measured.value), condition: parsed.data } : { summary: "", condition: null };
  const applied = await persist(driver, rule, next, notify, measured, said, now);
  return applied ? { ruleId: rule.id, state: next.state, notify, value: measured.value } : { ruleId: rule.id, state: rule.state, notify: null, value: measured.value };
}

const SET_STATE = `state = $3, active_since = $4::timestamptz, last_notified_at = $5::timestamptz, last_eval_at = $6::timestamptz,
                   last_value = $7, last_error = NULL, version = alert_states.version + 1`;

/** Notifications for the rule's enabled channels, for the firing `f` a CTE above produced. */
const NOTIFY = (event: string) =>
  `n AS (INSERT INTO alert_notifications (firing_id, rule_id, channel_id, event, next_attempt_at)
           SELECT f.id, $1, c.id, '${event}', $6::timestamptz FROM f, alert_channels c WHERE c.id = ANY($8::text[]) AND c.enabled ORDER BY c.id
         RETURNING id)
   SELECT (SELECT count(*) FROM st) AS applied`;

async function persist(
  driver: SqlDriver,
  rule: RuleRow,
  next: StoredState,
  notify: Notify,
  m: Measurement,
  { summary, condition }: { summary: string; condition: Condition | null },
  now: number,
): Promise<boolean> {
  const base = [rule.id, rule.version, next.state, ts(next.activeSince), ts(next.lastNotifiedAt), ts(now), m.value];
  let rows: { applied: string | number }[];
  switch (notify) {
    case null:
      return (await driver.run(`UPDATE alert_states SET ${SET_STATE} WHERE rule_id = $1 AND version = $2`, base)) === 1;
    case "firing": {
      const [seq] = await driver.query<{ id: string }>(`SELECT nextval(pg_get_serial_sequence('alert_firings', 'id'))::text AS id`);
      rows = await driver.query(
        `WITH st AS (UPDATE alert_states SET ${SET_STATE}, firing_id = $9::bigint WHERE rule_id = $1 AND version = $2 RETURNING rule_id),
              f AS (INSERT INTO alert_firings (id, rule_id, rule_name, severity, summary, condition, value, keys, fired_at)
                      SELECT $9::bigint, $1, $10, $11, $12, $14::jsonb, $7, $13::text[], $6::timestamptz FROM st RETURNING id),
              ${NOTIFY("firing")}`,
        [...base, rule.channel_ids, seq!.id, rule.name, rule.severity, summary, m.keys, condition === null ? null : JSON.stringify(condition)],
      );
      break;
    }
    case "repeat":
      rows = await driver.query(
        `WITH st AS (UPDATE alert_states SET ${SET_STATE} WHERE rule_id = $1 AND version = $2 RETURNING firing_id),
              f AS (UPDATE alert_firings SET value = $7, summary = $9, keys = $10::text[] WHERE id = (SELECT firing_id FROM st) RETURNING id),
              ${NOTIFY("repeat")}`,
        [...base, rule.channel_ids, summary, m.keys],
      );
      break;
    case "resolved":
      rows = await driver.query(
        `WITH st AS (UPDATE alert_states SET ${SET_STATE} WHERE rule_id = $1 AND version = $2 RETURNING firing_id),
              f AS (UPDATE alert_firings SET resolved_at = $6::timestamptz WHERE id = (SELECT firing_id FROM st) RETURNING id),
              ${NOTIFY("resolved")}`,
        [...base, rule.channel_ids],
      );
      break;
  }
  return Number(rows[0]?.applied ?? 0) === 1;
}
