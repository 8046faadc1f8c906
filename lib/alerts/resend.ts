import { logger } from "../log.ts";
import type { SqlDriver } from "../store/driver.ts";
import { alertsEndpoint, postableAlert } from "./channels/alertmanager.ts";
import type { ChannelConfig } from "./channels/config.ts";
import { postJson } from "./channels/http.ts";
import { FIRING_COLUMNS, messageOf, type FiringRow } from "./channels/message.ts";
import type { AlertSettings } from "./settings.ts";

/**
 * Alertmanager forgets an alert whose endsAt has passed, so a client sends its firing alerts again and again
 * (Prometheus every minute). This sends every firing alert of the rules that use an Alertmanager channel, all of a
 * channel's in one request. The firing and resolved notices themselves go through the outbox with its retries;
 * a resend that fails is only logged, as the next one follows within a minute.
 */

interface Row extends FiringRow {
  channel_id: string;
  channel_name: string;
  channel_config: ChannelConfig<"alertmanager">;
}

export interface ResendResult {
  channels: number;
  alerts: number;
  failed: number;
}

export async function resendFiring(driver: SqlDriver, settings: Pick<AlertSettings, "publicUrl">, now: number = Date.now()): Promise<ResendResult> {
  const rows = await driver.query<Row>(
    `SELECT ${FIRING_COLUMNS}, c.id AS channel_id, c.name AS channel_name, c.config AS channel_config
       FROM alert_states s JOIN alert_rules r ON r.id = s.rule_id JOIN alert_firings f ON f.id = s.firing_id
       JOIN alert_channels c ON c.id = ANY(r.channel_ids) AND c.enabled AND c.type = 'alertmanager'
      WHERE s.state = 'firing' AND f.resolved_at IS NULL
      ORDER BY c.id, f.id`,
  );
  const byChannel = new Map<string, Row[]>();
  for (const row of rows) {
    const alerts = byChannel.get(row.channel_id);
    if (alerts) alerts.push(row);
    else byChannel.set(row.channel_id, [row]);
  }
  const result: ResendResult = { channels: byChannel.size, alerts: rows.length, failed: 0 };
  await Promise.all(
    [...byChannel.values()].map(async (alerts) => {
      const { channel_name, channel_config } = alerts[0]!;
      try {
        await postJson(alertsEndpoint(channel_config.url), JSON.stringify(alerts.map((row) => postableAlert(messageOf(row, "repeat", { publicUrl: settings.publicUrl }), now))));
      } catch (error) {
        result.failed += 1;
        logger.warn({ channel: channel_name, alerts: alerts.length }, `resending firing alerts to Alertmanager failed: ${(error as Error).message}`);
      }
    }),
  );
  return result;
}
