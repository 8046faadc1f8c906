import { logger } from "../log.ts";
import type { SqlDriver } from "../store/driver.ts";
import type { ChannelConfig, ChannelType } from "./channels/config.ts";
import { ackSigningKey } from "./acks.ts";
import { FIRING_COLUMNS, messageOf, type AlertMessage, type FiringRow, type LinkContext } from "./channels/message.ts";
import { alertLabels } from "./channels/alertmanager.ts";
import { sendToChannel } from "./channels/send.ts";
import { activeSilences, silencing, type SilenceView } from "./silences.ts";
import { retryDelayMs, type AlertSettings } from "./settings.ts";

/**
 * Delivers the outbox. A notification is claimed by pushing its next attempt a lease into the future, so a
 * process that dies mid-send leaves it to be retried after the lease, and two processes never send it at once.
 * Per firing and channel, notifications go out in order: a resolved notice never overtakes its firing one.
 */

const LEASE_MS = 60_000;
const BATCH = 20;

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

const iso = (ms: number) => new Date(ms).toISOString();

export async function dispatchDue(driver: SqlDriver, settings: Pick<AlertSettings, "retryBaseMs" | "maxAttempts" | "publicUrl">, now: number = Date.now()): Promise<DispatchResult> {
  const claimed = await driver.query<Claimed>(
    `UPDATE alert_notifications SET attempts = attempts + 1, next_attempt_at = $2::timestamptz
      WHERE id IN (SELECT o.id FROM alert_notifications o
                    WHERE o.status = 'pending' AND o.next_attempt_at <= $1::timestamptz
                      AND NOT EXISTS (SELECT 1 FROM alert_notifications p
                                       WHERE p.firing_id = o.firing_id AND p.channel_id = o.channel_id AND p.status = 'pending' AND p.id < o.id)
                    ORDER BY o.id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING id::text, firing_id::text, rule_id, channel_id, event, attempts`,
    [iso(now), iso(now + LEASE_MS)],
  );
  const result: DispatchResult = { sent: 0, retrying: 0, failed: 0, silenced: 0 };
  if (claimed.length === 0) return result;
  const silences = await activeSilences(driver, now);
  const links = { publicUrl: settings.publicUrl, ack: { key: await ackSigningKey(driver), now } };
  await Promise.all(claimed.map(async (n) => result[await deliver(driver, n, settings, silences, links, now)]++));
  return result;
}

async function deliver(
  driver: SqlDriver,
  n: Claimed,
  settings: Pick<AlertSettings, "retryBaseMs" | "maxAttempts" | "publicUrl">,
  silences: readonly SilenceView[],
  links: LinkContext,
  now: number,
): Promise<keyof DispatchResult> {
  const [ctx] = await driver.query<Context>(
    `SELECT ${FIRING_COLUMNS},
            c.name AS channel_name, c.type AS channel_type, c.config AS channel_config, c.enabled AS channel_enabled
       FROM alert_firings f JOIN alert_channels c ON c.id = $2 LEFT JOIN alert_rules r ON r.id = f.rule_id
      WHERE f.id = $1::bigint`,
    [n.firing_id, n.channel_id],
  );
  if (!ctx || !ctx.channel_enabled) {
    await driver.run(`UPDATE alert_notifications SET status = 'cancelled', last_error = 'channel disabled' WHERE id = $1::bigint`, [n.id]);
    return "failed";
  }
  const message = messageOf(ctx, n.event, links);
  // Alertmanager has silences of its own and is told the truth about every alert; the other channels hear
  // nothing of a silenced one.
  const silence = ctx.channel_type === "alertmanager" ? undefined : silencing(silences, alertLabels(message));
  if (silence) {
    await driver.run(`UPDATE alert_notifications SET status = 'silenced', last_error = $2 WHERE id = $1::bigint`, [n.id, `silenced by ${silence.createdBy}: ${silence.comment}`]);
    return "silenced";
  }
  try {
    await sendToChannel({ id: n.channel_id, name: ctx.channel_name, type: ctx.channel_type, config: ctx.channel_config }, message, now);
    await driver.run(`UPDATE alert_notifications SET status = 'sent', sent_at = $2::timestamptz, last_error = NULL WHERE id = $1::bigint`, [n.id, iso(now)]);
    return "sent";
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const giveUp = n.attempts >= settings.maxAttempts;
    logger.warn({ channel: ctx.channel_name, rule: ctx.rule_name, attempt: n.attempts, giveUp }, `alert notification failed: ${reason}`);
    await driver.run(
      `UPDATE alert_notifications SET status = $2, last_error = $3, next_attempt_at = $4::timestamptz WHERE id = $1::bigint`,
      [n.id, giveUp ? "failed" : "pending", reason, iso(now + retryDelayMs(n.attempts, settings.retryBaseMs))],
    );
    return giveUp ? "failed" : "retrying";
  }
}
