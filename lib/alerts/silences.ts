import { randomUUID } from "node:crypto";
import { z } from "zod";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import type { SqlDriver } from "../store/driver.ts";
import type { Labels } from "./labels.ts";

/**
 * Silences as Alertmanager has them: matchers on an alert's labels (its rule's name as `alertname`, `severity`,
 * the rule's labels and its group_by values), equal or regex, negated or not, all of which must hold, over a time
 * range. A silenced alert keeps its state and history; its notifications are not sent (dispatcher.ts). Ending a
 * silence early sets its end to now: silences are never deleted, so the page can show who muted what and why.
 */

const MAX_DAYS = 90;

export const matcherSchema = z
  .object({
    name: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,62}$/, "must be a label name"),
    value: z.string().max(1024),
    isRegex: z.boolean().default(false),
    isEqual: z.boolean().default(true),
  })
  .strict()
  .superRefine((m, ctx) => {
    if (!m.isRegex) return;
    try {
      new RegExp(`^(?:${m.value})$`);
    } catch (error) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `is not a regular expression: ${(error as Error).message}` });
    }
  });

export type Matcher = z.infer<typeof matcherSchema>;

export const silenceInputSchema = z
  .object({
    matchers: z.array(matcherSchema).min(1).max(20),
    /** Default: now. */
    startsAt: z.iso.datetime({ offset: true }).optional(),
    endsAt: z.iso.datetime({ offset: true }).optional(),
    /** Instead of endsAt: how long from its start. */
    durationMinutes: z.number().int().min(1).max(MAX_DAYS * 1440).optional(),
    createdBy: z.string().trim().min(1).max(120),
    comment: z.string().trim().min(1).max(2000),
  })
  .strict()
  .refine((s) => (s.endsAt === undefined) !== (s.durationMinutes === undefined), { message: "give either endsAt or durationMinutes", path: ["endsAt"] });

export type SilenceInput = z.infer<typeof silenceInputSchema>;

export type SilenceState = "pending" | "active" | "expired";

export interface SilenceView {
  id: string;
  matchers: Matcher[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
  createdAt: string;
  state: SilenceState;
}

/** Alertmanager's matching: a regex is anchored at both ends; a label an alert lacks is the empty string. */
export function matches(matchers: readonly Matcher[], labels: Labels): boolean {
  return matchers.every((m) => {
    const value = labels[m.name] ?? "";
    const hit = m.isRegex ? new RegExp(`^(?:${m.value})$`).test(value) : value === m.value;
    return hit === m.isEqual;
  });
}

interface Row {
  id: string;
  matchers: Matcher[];
  starts_at: Date | string;
  ends_at: Date | string;
  created_by: string;
  comment: string;
  created_at: Date | string;
}

const iso = (v: Date | string) => new Date(v).toISOString();

function view(row: Row, now: number): SilenceView {
  const starts = new Date(row.starts_at).getTime();
  const ends = new Date(row.ends_at).getTime();
  return {
    id: row.id,
    matchers: row.matchers,
    startsAt: iso(row.starts_at),
    endsAt: iso(row.ends_at),
    createdBy: row.created_by,
    comment: row.comment,
    createdAt: iso(row.created_at),
    state: ends <= now ? "expired" : starts > now ? "pending" : "active",
  };
}

export async function createSilence(driver: SqlDriver, input: SilenceInput, now: number = Date.now()): Promise<SilenceView> {
  const startsAt = input.startsAt ? Date.parse(input.startsAt) : now;
  const endsAt = input.endsAt ? Date.parse(input.endsAt) : startsAt + input.durationMinutes! * 60_000;
  if (endsAt <= startsAt) throw new InvalidInputError("endsAt: must be after startsAt");
  if (endsAt <= now) throw new InvalidInputError("endsAt: must be in the future");
  if (endsAt - startsAt > MAX_DAYS * 86_400_000) throw new InvalidInputError(`endsAt: a silence lasts at most ${MAX_DAYS} days`);
  const [row] = await driver.query<Row>(
    `INSERT INTO alert_silences (id, matchers, starts_at, ends_at, created_by, comment, created_at)
     VALUES ($1, $2::jsonb, $3::timestamptz, $4::timestamptz, $5, $6, $7::timestamptz) RETURNING *`,
    [randomUUID(), JSON.stringify(input.matchers), new Date(startsAt).toISOString(), new Date(endsAt).toISOString(), input.createdBy, input.comment, new Date(now).toISOString()],
  );
  return view(row!, now);
}

/** Active and pending silences first (soonest end first), then the expired ones, latest first. */
export async function listSilences(driver: SqlDriver, now: number = Date.now(), expiredLimit = 50): Promise<SilenceView[]> {
  const at = new Date(now).toISOString();
  const [current, expired] = await Promise.all([
    driver.query<Row>(`SELECT * FROM alert_silences WHERE ends_at > $1::timestamptz ORDER BY ends_at, id`, [at]),
    driver.query<Row>(`SELECT * FROM alert_silences WHERE ends_at <= $1::timestamptz ORDER BY ends_at DESC, id LIMIT ${expiredLimit}`, [at]),
  ]);
  return [...current, ...expired].map((row) => view(row, now));
}

/** The silences in force at `now`. */
export async function activeSilences(driver: SqlDriver, now: number = Date.now()): Promise<SilenceView[]> {
  const at = new Date(now).toISOString();
  const rows = await driver.query<Row>(`SELECT * FROM alert_silences WHERE starts_at <= $1::timestamptz AND ends_at > $1::timestamptz ORDER BY id`, [at]);
  return rows.map((row) => view(row, now));
}

/** The first of `silences` that matches `labels`. */
export function silencing(silences: readonly SilenceView[], labels: Labels): SilenceView | undefined {
  return silences.find((s) => s.state === "active" && matches(s.matchers, labels));
}

/** Ends a silence now; an expired one stays as it was. */
export async function expireSilence(driver: SqlDriver, id: string, now: number = Date.now()): Promise<SilenceView> {
  const at = new Date(now).toISOString();
  const [row] = await driver.query<Row>(
    `UPDATE alert_silences SET ends_at = $2::timestamptz, starts_at = LEAST(starts_at, $2::timestamptz) WHERE id = $1 AND ends_at > $2::timestamptz RETURNING *`,
    [id, at],
  );
  if (row) return view(row, now);
  const [existing] = await driver.query<Row>(`SELECT * FROM alert_silences WHERE id = $1`, [id]);
  if (!existing) throw new NotFoundError(`no silence ${id}`);
  return view(existing, now);
}
