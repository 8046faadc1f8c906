import path from "node:path";

/** Where events live: a PostgreSQL server, or the embedded PGlite default that needs no server at all. */
export type StoreConfig =
  | { mode: "postgres"; url: string }
  | { mode: "embedded"; dataDir: string };

export const DEFAULT_DATA_DIR = ".dupscope/data";

export class StoreConfigError extends Error {}

export function storeConfigFromEnv(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): StoreConfig {
  const url = env.DATABASE_URL?.trim();
  if (url) {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new StoreConfigError(
        `DATABASE_URL must be a PostgreSQL URL (postgres://user@host:5432/db); unset it to use the embedded store in ${DEFAULT_DATA_DIR}`,
      );
    }
    return { mode: "postgres", url };
  }
  return { mode: "embedded", dataDir: path.resolve(cwd, env.DUPSCOPE_DATA_DIR?.trim() || DEFAULT_DATA_DIR) };
}

/** A location safe to show in /api/health and logs: no password. */
export function describeLocation(config: StoreConfig): string {
  if (config.mode === "embedded") return config.dataDir;
  try {
    const u = new URL(config.url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres (unparseable URL)";
  }
}
