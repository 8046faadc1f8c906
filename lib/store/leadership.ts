import { logger } from "../log.ts";
import type { SqlDriver, SqlSession } from "./driver.ts";

/**
 * One process at a time among the servers sharing a store, for jobs that must not run twice (alert evaluation and
 * delivery): the leader holds a session-level advisory lock on a connection of its own for as long as it leads.
 * When its process dies, PostgreSQL ends the session and frees the lock, and the next process to try takes over
 * within `retryMs`. The embedded store is one process by construction (its data-directory lock), so it always leads.
 */

export interface Leadership {
  readonly leading: boolean;
  stop(): Promise<void>;
}

/** A stable 64-bit advisory-lock key per job name (FNV-1a), in the signed range PostgreSQL's bigint takes. */
export function lockKey(name: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(`dupscope:${name}`)) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return BigInt.asIntN(64, hash);
}

export function lead(driver: SqlDriver, name: string, onChange: (leading: boolean) => void, retryMs = 5000): Leadership {
  const log = logger.child({ component: "leadership", job: name });
  const key = lockKey(name).toString();
  let leading = false;
  let stopped = false;
  let wake: () => void = () => {};
  const pause = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, retryMs).unref();
    });
  const set = (value: boolean) => {
    if (value === leading) return;
    leading = value;
    log.info(value ? "leading: this process runs the job" : "no longer leading");
    onChange(value);
  };

  const holdWhileAlive = async (session: SqlSession) => {
    const [row] = await session.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock($1::bigint) AS ok`, [key]);
    if (!row?.ok) return;
    set(true);
    try {
      // A connection that died has lost the lock with it: the next ping fails and another process may lead.
      while (!stopped) {
        await pause();
        if (!stopped) await session.query(`SELECT 1`);
      }
      await session.query(`SELECT pg_advisory_unlock($1::bigint)`, [key]);
    } finally {
      set(false);
    }
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        await driver.session(holdWhileAlive);
      } catch (error) {
        log.warn({ err: error }, "leadership connection failed; will try again");
      }
      if (!stopped) await pause();
    }
  })();

  return {
    get leading() {
      return leading;
    },
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
