import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { BROKERS } from "../../lib/events/model.ts";
import { formatIssues } from "../../lib/events/validate.ts";
import { parseUtcOffset } from "../codecs/log-time.ts";

/**
 * The probes file (`dupscope probe --config probes.yaml`, docs/probe.md): YAML or JSON, one entry per business
 * table to read. Credentials never live in it: a probe names the environment variable that holds its database URL.
 */

export const PROBE_DEFAULTS = {
  /** Longest a query may run before the database cancels it. */
  timeoutMs: 5000,
  /** Rows read per key at most; more than this and the key's rows are reported as cut. */
  maxRows: 100,
  /** Queries per second against one database at most (probes sharing a database variable share the budget). */
  maxQueriesPerSecond: 5,
} as const;

const name = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ -");
const column = z.string().trim().min(1, "must not be empty").max(128, "must be at most 128 characters");
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "must be the name of an environment variable, such as PAYMENT_DB_URL");
const offset = z.string().refine((v) => {
  try {
    parseUtcOffset(v);
    return true;
  } catch {
    return false;
  }
}, "must look like +08:00 or Z");

const limits = {
  timeoutMs: z.number().int("must be a whole number").min(100, "must be at least 100").max(600_000, "must be at most 600000").optional(),
  maxRows: z.number().int("must be a whole number").min(1, "must be at least 1").max(10_000, "must be at most 10000").optional(),
  maxQueriesPerSecond: z.number().positive("must be more than 0").max(1000, "must be at most 1000").optional(),
};

/** Keys that would put a credential in the file: refused with a pointer to databaseUrlEnv. */
const CREDENTIAL_KEYS = ["url", "databaseUrl", "database", "dsn", "connectionString", "password", "user", "username", "host"];

const probeSchema = z
  .object({
    name,
    match: z
      .object({ group: column.optional(), topic: column.optional() })
      .strict()
      .refine((m) => m.group !== undefined || m.topic !== undefined, "needs a group, a topic or both"),
    broker: z.enum(BROKERS).default("rocketmq"),
    databaseUrlEnv: envName,
    sql: z.string().trim().min(1, "must not be empty"),
    columns: z
      .object({
        time: column,
        key: z.union([column.transform((c) => [c]), z.array(column).min(1, "needs at least one column").max(16, "at most 16 columns")]),
        instance: column.optional(),
        state: column.optional(),
      })
      .strict(),
    utcOffset: offset.default("Z"),
    ...limits,
  })
  .strict();

const fileSchema = z
  .object({
    version: z.literal(1).optional(),
    defaults: z.object(limits).strict().optional(),
    probes: z.array(z.unknown()).min(1, "needs at least one probe"),
  })
  .strict();

export interface ProbeConfig {
  name: string;
  match: { group: string | null; topic: string | null };
  broker: (typeof BROKERS)[number];
  /** The environment variable holding the database URL (mysql://, mariadb://, postgres://). */
  databaseUrlEnv: string;
  sql: string;
  columns: { time: string; key: string[]; instance: string | null; state: string | null };
  /** Zone of time values the database prints without one (DATETIME, timestamp without time zone). */
  utcOffset: string;
  timeoutMs: number;
  maxRows: number;
  maxQueriesPerSecond: number;
}

export class ProbeConfigError extends Error {}

/** Parses and checks a probes file; throws ProbeConfigError naming every problem. */
export function parseProbeConfig(text: string, file = "probes file"): ProbeConfig[] {
  let raw: unknown;
  try {
    raw = parseYaml(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new ProbeConfigError(`${file}: not YAML or JSON: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  const top = fileSchema.safeParse(raw);
  if (!top.success) throw new ProbeConfigError(`${file}: ${formatIssues(top.error)}`);
  const defaults = top.data.defaults ?? {};
  const problems: string[] = [];
  const probes: ProbeConfig[] = [];
  top.data.probes.forEach((entry, i) => {
    const where = `probes.${i}`;
    if (entry !== null && typeof entry === "object" && !Array.isArray(entry)) {
      const credential = CREDENTIAL_KEYS.find((k) => k in entry);
      if (credential !== undefined) {
        problems.push(`${where}.${credential}: credentials never go in the file: put the database URL in an environment variable and name it with databaseUrlEnv`);
        return;
      }
    }
    const parsed = probeSchema.safeParse(entry);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((issue) => `${[where, ...issue.path].join(".")}: ${issue.message}`));
      return;
    }
    const p = parsed.data;
    probes.push({
      name: p.name,
      match: { group: p.match.group ?? null, topic: p.match.topic ?? null },
      broker: p.broker,
      databaseUrlEnv: p.databaseUrlEnv,
      sql: p.sql,
      columns: { time: p.columns.time, key: p.columns.key, instance: p.columns.instance ?? null, state: p.columns.state ?? null },
      utcOffset: p.utcOffset,
      timeoutMs: p.timeoutMs ?? defaults.timeoutMs ?? PROBE_DEFAULTS.timeoutMs,
      maxRows: p.maxRows ?? defaults.maxRows ?? PROBE_DEFAULTS.maxRows,
      maxQueriesPerSecond: p.maxQueriesPerSecond ?? defaults.maxQueriesPerSecond ?? PROBE_DEFAULTS.maxQueriesPerSecond,
    });
  });
  const seen = new Set<string>();
  for (const p of probes) {
    if (seen.has(p.name)) problems.push(`probe name "${p.name}" is used twice`);
    seen.add(p.name);
  }
  if (problems.length > 0) throw new ProbeConfigError(`${file}: ${problems.join("; ")}`);
  return probes;
}

/** The SQL dialect a database URL speaks, from its scheme. */
export function dialectOf(url: string): "mysql" | "postgres" | null {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === "mysql" || scheme === "mariadb") return "mysql";
  if (scheme === "postgres" || scheme === "postgresql") return "postgres";
  return null;
}
