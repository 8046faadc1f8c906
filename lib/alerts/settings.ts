/** The alerting knobs, from the environment (docs/configuration.md, docs/alerts.md). */

type Env = Record<string, string | undefined>;

function wholeNumber(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return value;
}

export interface AlertSettings {
  /** Evaluation interval; 0 turns alerting off in this process. */
  intervalMs: number;
  /** First retry delay of a failed notification; each further retry waits twice as long (at most 10 min). */
  retryBaseMs: number;
  /** Attempts before a notification is given up and shown as failed. */
  maxAttempts: number;
  /** Base of the links in notifications, e.g. https://dupscope.example.com; unset: paths only. */
  publicUrl: string;
  /**
   * Grouping of a rule's notifications per channel, as Alertmanager's group_wait and group_interval: a first
   * notice waits `groupWaitMs` for others of its rule to join it; after a message went out, the rule's next one
   * waits until `groupIntervalMs` has passed, and carries everything that happened meanwhile.
   */
  groupWaitMs: number;
  groupIntervalMs: number;
}

export function alertSettings(env: Env = process.env): AlertSettings {
  return {
    intervalMs: wholeNumber(env, "DUPSCOPE_ALERT_INTERVAL_MS", 30_000, 0),
    retryBaseMs: wholeNumber(env, "DUPSCOPE_ALERT_RETRY_BASE_MS", 5_000, 1),
    maxAttempts: wholeNumber(env, "DUPSCOPE_ALERT_MAX_ATTEMPTS", 8, 1),
    publicUrl: (env.DUPSCOPE_PUBLIC_URL?.trim() ?? "").replace(/\/+$/, ""),
    // No wait by default: the alerts a rule starts in one evaluation round already leave together.
    groupWaitMs: wholeNumber(env, "DUPSCOPE_ALERT_GROUP_WAIT_MS", 0, 0),
    groupIntervalMs: wholeNumber(env, "DUPSCOPE_ALERT_GROUP_INTERVAL_MS", 60_000, 0),
  };
}

export const MAX_RETRY_DELAY_MS = 10 * 60_000;

export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, attempts - 1));
}
