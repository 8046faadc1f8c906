import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { CITUS_TARBALL, citusExpected, citusProblem, citusUrl } from "../../scripts/citus-cluster.mjs";

/**
 * The Citus test cluster `npm run setup:test` starts (TEST_CITUS_URL, else the local coordinator on 5441) is a
 * real one: Citus 12.1, two active workers, and a table distributed by a text column spreads its rows over both.
 * Only this file runs on it until the schema has a Citus layout. With the vendored source in the checkout the
 * cluster is expected, so a cluster that does not answer fails here; a checkout without it skips as not set up.
 */
const url = citusUrl();
const problem = await citusProblem(url);

if (problem !== undefined && citusExpected()) {
  it("the Citus test cluster answers", () => {
    const message = `${problem}: run npm run setup:test (as root), which builds Citus from ${CITUS_TARBALL} when it is missing and starts the cluster`;
    const error = new Error(message);
    error.stack = `Error: ${message}`;
    throw error;
  });
} else {
  describe("the Citus test cluster", { skip: problem !== undefined && `not set up (${CITUS_TARBALL} is missing and TEST_CITUS_URL is not set)` }, () => {
    // Several checkouts may run this file against the same cluster at once: each gets a table of its own.
    const table = `dupscope_smoke_${process.pid}_${Date.now().toString(36)}`;
    let client: pg.Client;

    before(async () => {
      client = new pg.Client({ connectionString: url });
      await client.connect();
    });

    after(async () => {
      await client.query(`DROP TABLE IF EXISTS "${table}"`);
      await client.end();
    });

    it("runs Citus 12.1", async () => {
      const { rows } = await client.query<{ version: string }>("SELECT citus_version() AS version");
      assert.match(rows[0]!.version, /^Citus 12\.1\./);
    });

    it("has two active workers", async () => {
      const { rows } = await client.query("SELECT * FROM citus_get_active_worker_nodes()");
      assert.equal(rows.length, 2);
    });

    it("spreads a table distributed by a text key over both workers, and reads one key from one shard", async () => {
      await client.query(`CREATE TABLE "${table}" (biz_key TEXT NOT NULL, n INTEGER NOT NULL)`);
      await client.query(`SELECT create_distributed_table('"${table}"', 'biz_key')`);
      await client.query(`INSERT INTO "${table}" SELECT 'ORDER-' || i, i FROM generate_series(1, 200) AS i`);

      const { rows: perWorker } = await client.query<{ nodeport: number; rows: number }>(
        `SELECT p.nodeport, sum(r.result::int)::int AS rows
           FROM run_command_on_shards('"${table}"', 'SELECT count(*) FROM %s') AS r
           JOIN pg_dist_shard_placement AS p USING (shardid)
          GROUP BY p.nodeport ORDER BY p.nodeport`,
      );
      const { rows: workers } = await client.query<{ node_port: number }>("SELECT node_port::int FROM citus_get_active_worker_nodes() ORDER BY node_port");
      assert.deepEqual(
        perWorker.map((w) => w.nodeport),
        workers.map((w) => w.node_port),
      );
      assert.ok(perWorker.every((w) => w.rows > 0), JSON.stringify(perWorker));
      assert.equal(perWorker.reduce((sum, w) => sum + w.rows, 0), 200);

      const { rows: plan } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN SELECT * FROM "${table}" WHERE biz_key = 'ORDER-42'`);
      assert.match(plan.map((line) => line["QUERY PLAN"]).join("\n"), /Task Count: 1\b/);
    });
  });
}
