// The Citus test cluster that `npm run setup:test` builds and starts (scripts/setup-test.sh holds the same
// ports, database and tarball): a coordinator on 127.0.0.1:5441 with workers on 5442-5443, database `test`.
// scripts/test.mjs and the tests on the cluster find it through here.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const CITUS_TARBALL = "vendor/citus/citus-12.1.12.tar.gz";

export function citusUrl() {
  return process.env.TEST_CITUS_URL || "postgres://postgres@127.0.0.1:5441/test";
}

// A cluster is expected when one is named, or when the vendored source is there for setup:test to build it: then
// the tests on it fail rather than skip when it does not answer.
export function citusExpected() {
  return Boolean(process.env.TEST_CITUS_URL) || existsSync(path.join(ROOT, CITUS_TARBALL));
}

export function redactUrl(url) {
  return url.replace(/:[^:@/]*@/, ":***@");
}

export async function citusProblem(url = citusUrl()) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on("error", () => {});
  try {
    await client.connect();
    const { rows } = await client.query("SELECT nodeport, success, result FROM run_command_on_workers('SELECT 1') ORDER BY nodeport");
    const down = rows.filter((r) => !r.success).map((r) => `worker ${r.nodeport}: ${r.result}`);
    if (down.length > 0) return `the Citus coordinator at ${redactUrl(url)} cannot reach ${down.join(", ")}`;
    return rows.length === 2 ? undefined : `the Citus coordinator at ${redactUrl(url)} has ${rows.length} active workers, not 2`;
  } catch (error) {
    return `no Citus coordinator at ${redactUrl(url)} (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    await client.end().catch(() => {});
  }
}
