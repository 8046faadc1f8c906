import { logger } from "../log.ts";
import type { SqlDriver } from "../store/driver.ts";
import type { ChannelConfig, ChannelType } from "./channels/config.ts";
import { ackSigningKey } from "./acks.ts";
import { FIRING_COLUMNS, messageOf, type AlertMessage, type FiringRow, type LinkContext, type Notice } from "./channels/message.ts";
import { alertLabels } from "./channels/alertmanager.ts";
import { sendToChannel } from "./channels/send.ts";
import { activeSilences, silencing, type SilenceView } from "./silences.ts";
import { retryDelayMs, type AlertSettings } from "./settings.ts";

/**
 * Delivers the outbox. A notification is claimed by pushing its next attempt a lease into the future, so a
 * process that dies mid-send leaves it to be retried after the lease, and two processes never send it at once.
 * Per firing and channel, notifications go out in order: a resolved notice never overtakes its firing one.
 * A rule's notifications to one channel leave together as one notice, grouped as Alertmanager groups: a first
 * notice waits group_wait for others to join it, and after one went out the next waits until group_interval.
 */

const LEASE_MS = 60_000;
const BATCH = 100;

interface Claimed {
  id: string;
  firing_id: string;
  rule_id: string;
  channel_id: string;
  event: AlertMessage["event"];
  attempts: number;
}

interface Context extends FiringRow {
  channel_name: string;
  channel_type: ChannelType;
  channel_config: ChannelConfig;
  channel_enabled: boolean;
}

export interface DispatchResult {
  sent: number;
  retrying: number;
  /** Given up after the last attempt, or dropped because its channel was disabled meanwhile. */
  failed: number;
  /** Not sent: a silence matched the alert's labels (silences.ts). */
  silenced: number;
}

export type DispatchSettings = Pick<AlertSettings, "retryBaseMs" | "maxAttempts" | "publicUrl"> & Partial<Pick<AlertSettings, "groupWaitMs" | "groupIntervalMs">>;

const iso = (ms: number) => new Date(ms).toISOString();

export async function dispatchDue(driver: SqlDriver, settings: DispatchSettings, now: number = Date.now()): Promise<DispatchResult> {
  // Retries (attempts > 0) are not held back by grouping: they already waited their backoff.
  const claimed = await driver.query<Claimed>(
    `UPDATE alert_notifications SET attempts = attempts + 1, next_attempt_at = $2::timestamptz
      WHERE id IN (SELECT o.id FROM alert_notifications o
                    WHERE o.status = 'pending' AND o.next_attempt_at <= $1::timestamptz
                      AND NOT EXISTS (SELECT 1 FROM alert_notifications p
                                       WHERE p.firing_id = o.firing_id AND p.channel_id = o.channel_id AND p.status = 'pending' AND p.id < o.id)
                      AND (o.attempts > 0 OR EXISTS (SELECT 1 FROM alert_notifications w
                                                      WHERE w.rule_id = o.rule_id AND w.channel_id = o.channel_id AND w.status = 'pending'
                                                        AND w.attempts = 0 AND w.next_attempt_at <= $3::timestamptz))
                      AND (o.attempts > 0 OR NOT EXISTS (SELECT 1 FROM alert_notifications s
                                                          WHERE s.rule_id = o.rule_id AND s.channel_id = o.channel_id AND s.status = 'sent'
                                                            AND s.sent_at > $4::timestamptz))
                    ORDER BY o.id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING id::text, firing_id::text, rule_id, channel_id, event, attempts`,
    [iso(now), iso(now + LEASE_MS), iso(now - (settings.groupWaitMs ?? 0)), iso(now - (settings.groupIntervalMs ?? 0))],
  );
  const result: DispatchResult = { sent: 0, retrying: 0, failed: 0, silenced: 0 };
  if (claimed.length === 0) return result;
  const silences = await activeSilences(driver, now);
  const links = { publicUrl: settings.publicUrl, ack: { key: await ackSigningKey(driver), now } };
  const groups = new Map<string, Claimed[]>();
  for (const n of claimed.sort((a, b) => Number(a.id) - Number(b.id))) {
    const key = `${n.rule_id}\u0000${n.channel_id}`;
    const group = groups.get(key);
    if (group) group.push(n);
    else groups.set(key, [n]);
  }
  await Promise.all(
    [...groups.values()].map(async (group) => {
      for (const [outcome, count] of await deliver(driver, group, settings, silences, links, now)) result[outcome] += count;
    }),
  );
  return result;
}

/** Delivers the claimed notifications of one rule to one channel as one notice; returns how each ended. */
async function deliver(
  driver: SqlDriver,
  group: Claimed[],
  settings: DispatchSettings,
  silences: readonly SilenceView[],
  links: LinkContext,
  now: number,
): Promise<[keyof DispatchResult, number][]> {
  const channelId = group[0]!.channel_id;
  const contexts = await driver.query<Context>(
    `SELECT ${FIRING_COLUMNS},
            c.name AS channel_name, c.type AS channel_type, c.config AS channel_config, c.enabled AS channel_enabled
       FROM alert_firings f JOIN alert_channels c ON c.id = $2 LEFT JOIN alert_rules r ON r.id = f.rule_id
      WHERE f.id = ANY($1::bigint[])`,
    [group.map((n) => n.firing_id), channelId],
  );
  const byFiring = new Map(contexts.map((c) => [String(c.firing_id), c]));
  const outcomes: [keyof DispatchResult, number][] = [];
  const sending: { n: Claimed; message: AlertMessage }[] = [];
  for (const n of group) {
    const ctx = byFiring.get(n.firing_id);
    if (!ctx || !ctx.channel_enabled) {
      await driver.run(`UPDATE alert_notifications SET status = 'cancelled', last_error = 'channel disabled' WHERE id = $1::bigint`, [n.id]);
      outcomes.push(["failed", 1]);
      continue;
    }
    const message = messageOf(ctx, n.event, links);
    // Alertmanager has silences of its own and is told the truth about every alert; the other channels hear
    // nothing of a silenced one.
    const silence = ctx.channel_type === "alertmanager" ? undefined : silencing(silences, alertLabels(message));
    if (silence) {
      await driver.run(`UPDATE alert_notifications SET status = 'silenced', last_error = $2 WHERE id = $1::bigint`, [n.id, `silenced by ${silence.createdBy}: ${silence.comment}`]);
      outcomes.push(["silenced", 1]);
      continue;
    }
    sending.push({ n, message });
  }
  if (sending.length === 0) return outcomes;
  const ctx = byFiring.get(sending[0]!.n.firing_id)!;
  const ids = sending.map((s) => s.n.id);
  try {
    const [first, ...rest] = sending.map((s) => s.message);
    const notice: Notice = [first!, ...rest];
    await sendToChannel({ id: channelId, name: ctx.channel_name, type: ctx.channel_type, config: ctx.channel_config }, notice, now);
    await driver.run(`UPDATE alert_notifications SET status = 'sent', sent_at = $2::timestamptz, last_error = NULL WHERE id = ANY($1::bigint[])`, [ids, iso(now)]);
    outcomes.push(["sent", sending.length]);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    for (const { n } of sending) {
      const giveUp = n.attempts >= settings.maxAttempts;
      logger.warn({ channel: ctx.channel_name, rule: ctx.rule_name, attempt: n.attempts, giveUp }, `alert notification failed: ${reason}`);
      await driver.run(
        `UPDATE alert_notifications SET status = $2, last_error = $3, next_attempt_at = $4::timestamptz WHERE id = $1::bigint`,
        [n.id, giveUp ? "failed" : "pending", reason, iso(now + retryDelayMs(n.attempts, settings.retryBaseMs))],
      );
      outcomes.push([giveUp ? "failed" : "retrying", 1]);
    }
  }
  return outcomes;
}
