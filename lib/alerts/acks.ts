import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import type { SqlDriver } from "../store/driver.ts";
import { seriesKey, type Labels } from "./labels.ts";

/**
 * Acknowledging a firing alert: someone is on it. An acknowledged alert sends no repeat notifications until it
 * resolves (the evaluator then clears the acknowledgement, so the next firing pages again) or until the
 * acknowledgement's own end, if it has one. Chat notifications carry a link that acknowledges without a login:
 * a signed token naming the one firing it is for and when it expires. Both bump the state's version, so an
 * evaluation round that read the state before cannot send the reminder the acknowledgement stops.
 */

export const ackInputSchema = z
  .object({
    ruleId: z.string().min(1).max(64),
    /** The alert's label set within its rule ({} for a rule without group_by). */
    labels: z.record(z.string(), z.string().max(1024)).default({}),
    by: z.string().trim().min(1).max(120),
    comment: z.string().trim().max(2000).default(""),
    /** How long the acknowledgement holds; none: until the alert resolves. */
    minutes: z.number().int().min(1).max(7 * 1440).optional(),
  })
  .strict();

export type AckInput = z.infer<typeof ackInputSchema>;

export interface AckView {
  ruleId: string;
  labels: Labels;
  by: string;
  comment: string;
  at: string;
  until: string | null;
}

interface Row {
  rule_id: string;
  labels: Labels;
  acked_by: string;
  ack_comment: string;
  acked_at: Date | string;
  ack_until: Date | string | null;
}

const view = (row: Row): AckView => ({
  ruleId: row.rule_id,
  labels: row.labels,
  by: row.acked_by,
  comment: row.ack_comment,
  at: new Date(row.acked_at).toISOString(),
  until: row.ack_until === null ? null : new Date(row.ack_until).toISOString(),
});

/** `firingId`: only that firing (a signed link); a link for an earlier firing must not acknowledge a new one. */
export async function ackAlert(driver: SqlDriver, input: AckInput, now: number = Date.now(), firingId?: string): Promise<AckView> {
  const at = new Date(now).toISOString();
  const until = input.minutes === undefined ? null : new Date(now + input.minutes * 60_000).toISOString();
  const series = seriesKey(input.labels);
  const [row] = await driver.query<Row>(
    `UPDATE alert_states SET acked_by = $3, ack_comment = $4, acked_at = $5::timestamptz, ack_until = $6::timestamptz, version = version + 1
      WHERE rule_id = $1 AND series = $2 AND state = 'firing'${firingId === undefined ? "" : ` AND firing_id = $7::bigint`}
      RETURNING rule_id, labels, acked_by, ack_comment, acked_at, ack_until`,
    [input.ruleId, series, input.by, input.comment, at, until, ...(firingId === undefined ? [] : [firingId])],
  );
  if (row) return view(row);
  const [state] = await driver.query<{ state: string }>(`SELECT state FROM alert_states WHERE rule_id = $1 AND series = $2`, [input.ruleId, series]);
  if (!state) throw new NotFoundError(`no alert of rule ${input.ruleId} with labels ${JSON.stringify(input.labels)}`);
  if (state.state !== "firing") throw new InvalidInputError(`the alert is ${state.state}, not firing: there is nothing to acknowledge`);
  throw new InvalidInputError("the link is for an earlier firing of this alert, which has resolved");
}

/** Withdraws an acknowledgement: repeats resume. */
export async function unackAlert(driver: SqlDriver, ruleId: string, labels: Labels): Promise<void> {
  const changed = await driver.run(
    `UPDATE alert_states SET acked_by = NULL, ack_comment = NULL, acked_at = NULL, ack_until = NULL, version = version + 1 WHERE rule_id = $1 AND series = $2 AND acked_at IS NOT NULL`,
    [ruleId, seriesKey(labels)],
  );
  if (changed === 0) throw new NotFoundError(`no acknowledged alert of rule ${ruleId} with labels ${JSON.stringify(labels)}`);
}

/** Whether an acknowledgement stored on a state holds at `now`. */
export function acknowledged(ackedAt: number | null, ackUntil: number | null, now: number): boolean {
  return ackedAt !== null && (ackUntil === null || ackUntil > now);
}

// --- signed links -------------------------------------------------------------------------------------------

/** How long a notification's acknowledge link works. */
export const ACK_LINK_TTL_MS = 24 * 3_600_000;

export interface AckClaim {
  ruleId: string;
  labels: Labels;
  firingId: string;
  expiresAt: number;
}

/**
 * The key the links are signed with: DUPSCOPE_ACK_SECRET, else one made once and kept in the store, so every
 * server process on the database signs and checks alike.
 */
export async function ackSigningKey(driver: SqlDriver, env: Record<string, string | undefined> = process.env): Promise<Buffer> {
  if (env.DUPSCOPE_ACK_SECRET) return Buffer.from(env.DUPSCOPE_ACK_SECRET, "utf8");
  // Once made the stored key never changes: read it once per store, not on every dispatch round.
  let key = storedKeys.get(driver);
  if (!key) {
    key = readStoredKey(driver);
    storedKeys.set(driver, key);
    key.catch(() => storedKeys.delete(driver));
  }
  return key;
}

const storedKeys = new WeakMap<SqlDriver, Promise<Buffer>>();

async function readStoredKey(driver: SqlDriver): Promise<Buffer> {
  await driver.run(`INSERT INTO dupscope_settings (name, value) VALUES ('ack_signing_key', $1) ON CONFLICT DO NOTHING`, [randomBytes(32).toString("base64url")]);
  const [row] = await driver.query<{ value: string }>(`SELECT value FROM dupscope_settings WHERE name = 'ack_signing_key'`);
  return Buffer.from(row!.value, "base64url");
}

const mac = (key: Buffer, payload: string) => createHmac("sha256", key).update(payload).digest("base64url");

/** `<payload>.<HMAC-SHA256>`, the payload the claim as base64url JSON. */
export function signAck(key: Buffer, claim: AckClaim): string {
  const payload = Buffer.from(JSON.stringify([claim.ruleId, claim.labels, claim.firingId, claim.expiresAt])).toString("base64url");
  return `${payload}.${mac(key, payload)}`;
}

/** The claim of a token this key signed and that has not expired; InvalidInputError with the reason otherwise. */
export function readAck(key: Buffer, token: string, now: number = Date.now()): AckClaim {
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) throw new InvalidInputError("token: not an acknowledge link");
  const expected = Buffer.from(mac(key, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new InvalidInputError("token: the signature does not match (a changed link, or another dupscope's)");
  const parsed = z
    .tuple([z.string(), z.record(z.string(), z.string()), z.string().regex(/^\d+$/), z.number()])
    .safeParse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
  if (!parsed.success) throw new InvalidInputError("token: not an acknowledge link");
  const [ruleId, labels, firingId, expiresAt] = parsed.data;
  if (expiresAt <= now) throw new InvalidInputError("token: the link has expired; acknowledge on the alerts page");
  return { ruleId, labels, firingId, expiresAt };
}
