import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { UsageError } from "../../../cli/ingest.ts";
import { buildProgram } from "../../../cli/main.ts";
import { probeFailure, runProbeCommand, type ProbeOptions } from "../../../cli/probe.ts";
import type { ProbeDatabase } from "../../../lib/probe/database.ts";

/** `dupscope probe --server`: keys from the server's stored duplicates, page by page, events posted like ingest. */

const ROWS: Record<string, Record<string, unknown>[]> = {
  "ORD-1": [
    { id: 1, created_at: "2026-11-30 12:00:01.204", updated_by: "10.0.0.5@4121" },
    { id: 2, created_at: "2026-11-30 12:00:21.050", updated_by: "10.0.0.7@88" },
  ],
  "ORD-2": [{ id: 3, created_at: "2026-11-30 12:05:00.000", updated_by: "10.0.0.5@4121" }],
};

const fakeOpen = async (): Promise<ProbeDatabase> => ({
  dialect: "mysql",
  server: "mariadb 10.11.19",
  query: async (q) => ({ rows: ROWS[q.bizKey] ?? [], truncated: false }),
  close: async () => {},
});

describe("dupscope probe with --server", () => {
  let server: Server;
  let url: string;
  let dir: string;
  let config: string;
  const requests: { method: string; url: string; auth?: string; body: string }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        requests.push({ method: req.method!, url: req.url!, ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), body });
        const u = new URL(req.url!, "http://x");
        res.setHeader("content-type", "application/json");
        if (u.pathname === "/api/v1/duplicates") {
          // Two pages; ORD-1 is listed twice (two verdicts of one key).
          const page = u.searchParams.get("cursor") === null ? { items: [{ bizKey: "ORD-1" }, { bizKey: "ORD-1" }], nextCursor: "1796011201204:v2" } : { items: [{ bizKey: "ORD-2" }, { bizKey: "ORD-3" }], nextCursor: null };
          res.end(JSON.stringify(page));
        } else if (u.pathname === "/api/v1/events") {
          res.end(JSON.stringify({ accepted: body.trim().split("\n").length, duplicates: 0, rejected: [] }));
        } else {
          res.statusCode = 404;
          res.end("{}");
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(path.join(tmpdir(), "dupscope-probe-cli-"));
    config = path.join(dir, "probes.yaml");
    writeFileSync(
      config,
      `probes:
  - name: payment
    match: { group: GID_payment, topic: PAY_SUCCESS }
    databaseUrlEnv: PAYMENT_DB_URL
    sql: SELECT id, created_at, updated_by FROM payment WHERE order_id = :bizKey
    columns: { time: created_at, key: id, instance: updated_by }
    maxQueriesPerSecond: 1000
`,
    );
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const options = (more: Partial<ProbeOptions>): ProbeOptions => ({ config, outcome: "unknown", maxKeys: 1000, server: url, ...more });
  const env = { PAYMENT_DB_URL: "mysql://probe@db/pay" };

  it("takes the keys of the probe's unknown duplicates, page by page, and posts the events with the ingest token", async () => {
    const lines: string[] = [];
    const report = await runProbeCommand(options({ keysFromVerdicts: true, since: "2026-11-30T00:00:00Z", token: "t0k" }), (l) => lines.push(l), () => {}, { env, open: fakeOpen });
    const reads = requests.filter((r) => r.method === "GET").map((r) => new URL(r.url, "http://x"));
    assert.equal(reads.length, 2);
    assert.deepEqual(Object.fromEntries(reads[0]!.searchParams), { group: "GID_payment", topic: "PAY_SUCCESS", outcome: "unknown", from: String(Date.UTC(2026, 10, 30)), limit: "500" });
    assert.equal(reads[1]!.searchParams.get("cursor"), "1796011201204:v2");
    assert.ok(requests.filter((r) => r.method === "GET").every((r) => r.auth === undefined), "the ingest token is for ingest only");
    assert.equal(report.probes[0]!.keys, 3);
    assert.equal(report.probes[0]!.events, 3);
    const posts = requests.filter((r) => r.method === "POST");
    assert.equal(posts.length, 1, "one batch");
    assert.equal(posts[0]!.auth, "Bearer t0k");
    assert.deepEqual(
      posts[0]!.body.split("\n").map((l) => JSON.parse(l).bizKey),
      ["ORD-1", "ORD-1", "ORD-2"],
    );
    assert.deepEqual(report.stored, { accepted: 3, duplicates: 0, rejected: [] });
    assert.equal(probeFailure(report), null);
    assert.deepEqual(lines, ["probe payment (mariadb 10.11.19): 3 keys, 3 queries, 3 rows, 3 events, 2 keys with rows", `stored in ${url}/api/v1/events: 3 new, 0 already there, 0 rejected`]);
  });

  it("--max-keys caps the keys, and --dry-run prints instead of posting", async () => {
    requests.length = 0;
    const out: string[] = [];
    const report = await runProbeCommand(options({ keysFromVerdicts: true, maxKeys: 1, dryRun: true }), () => {}, (l) => out.push(l), { env, open: fakeOpen });
    assert.equal(report.probes[0]!.keys, 1);
    assert.equal(report.stored, undefined);
    assert.equal(out.length, 2);
    assert.ok(requests.every((r) => r.method === "GET"));
  });

  it("refuses contradictory or incomplete options as usage errors", async () => {
    const usage = (o: Partial<ProbeOptions>) => assert.rejects(runProbeCommand(options(o), () => {}, () => {}, { env, open: fakeOpen }), UsageError);
    await usage({});
    await usage({ key: ["K"], keysFromVerdicts: true });
    await usage({ key: ["K"], outcome: "maybe" });
    await usage({ key: ["K"], dryRun: true, json: true });
    await usage({ key: ["K"], probe: ["nope"] });
    await usage({ key: ["K"], config: path.join(dir, "missing.yaml") });
    await usage({ keysFromVerdicts: true, since: "last tuesday" });
    await assert.rejects(runProbeCommand(options({ key: ["K"] }), () => {}, () => {}, { env: {}, open: fakeOpen }), /PAYMENT_DB_URL is not set/);
  });

  it("is wired into the CLI with its options", () => {
    const probe = buildProgram(() => {}, () => {}).commands.find((c) => c.name() === "probe")!;
    const flags = probe.options.map((o) => o.long);
    for (const f of ["--config", "--key", "--keys-from-verdicts", "--outcome", "--since", "--max-keys", "--probe", "--server", "--token", "--database", "--dry-run", "--json"]) assert.ok(flags.includes(f), f);
  });
});
