import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import pg from "pg";
import { startCli } from "../helpers/cli.ts";
import { startServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

function dedupLines(from: number, count: number): string {
  let text = "";
  for (let i = from; i < from + count; i++) {
    text += `${JSON.stringify({ ts: T0 + i * 10, bizKey: `FOLLOW-${i}`, msgId: `7F00000100${String(i).padStart(22, "0")}`, group: "pay-consumer", instance: "10.0.0.5@4121", layer: "redis", decision: "pass" })}\n`;
  }
  return text;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function stopCli(cli: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  cli.stderr!.on("data", (d) => (stderr += d));
  return new Promise((resolve) => {
    cli.on("exit", (code) => resolve({ code, stderr }));
    cli.kill("SIGINT");
  });
}

async function storedKeys(url: string, count: number): Promise<number> {
  let found = 0;
  for (let i = 0; i < count; i++) if ((await fetch(`${url}/api/v1/keys/FOLLOW-${i}`)).status === 200) found++;
  return found;
}

for (const backend of backends) {
  describe(`dupscope ingest --follow on ${backend.name}`, () => {
    it("keeps following through a server restart and loses no line", async () => {
      const created = await backend.create();
      const dir = mkdtempSync(path.join(tmpdir(), "dupscope-follow-"));
      const file = path.join(dir, "dedup.log");
      writeFileSync(file, dedupLines(0, 3));
      let server = await startServer(created.env);
      const cli = startCli(["ingest", "--format", "dedup-log", "--follow", "--server", server.url, file]);
      try {
        await until("the first lines", async () => (await storedKeys(server.url, 3)) === 3);
        await server.stop();
        appendFileSync(file, dedupLines(3, 3));
        await new Promise((resolve) => setTimeout(resolve, 1500));
        server = await startServer(created.env, server.port);
        appendFileSync(file, dedupLines(6, 2));
        await until("every line after the restart", async () => (await storedKeys(server.url, 8)) === 8);
        const { code, stderr } = await stopCli(cli);
        assert.equal(code, 0, stderr);
        assert.match(stderr, /retry \d+ in [\d.]+ (ms|s): cannot reach/);
        assert.match(stderr, /events 8: 8 stored/);
      } finally {
        cli.kill("SIGKILL");
        await server.stop();
        await created.dispose();
      }
    });
  });
}

for (const backend of backends.filter((b) => b.name === "postgres")) {
  describe("dupscope ingest --follow --database", () => {
    it("reconnects after PostgreSQL drops its connections and loses no line", async () => {
      const created = await backend.create();
      const url = created.env.DATABASE_URL!;
      const dbName = new URL(url).pathname.slice(1);
      const dir = mkdtempSync(path.join(tmpdir(), "dupscope-follow-"));
      const file = path.join(dir, "dedup.log");
      writeFileSync(file, dedupLines(0, 3));
      const cli = startCli(["ingest", "--format", "dedup-log", "--follow", "--database", url, file]);
      const count = async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          return Number((await client.query("SELECT count(*) AS n FROM events")).rows[0].n);
        } finally {
          await client.end();
        }
      };
      try {
        await until("the first lines", async () => (await count()) === 3);
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        // What clients see when the server restarts: every session of the database is cut.
        await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [dbName]);
        await admin.end();
        appendFileSync(file, dedupLines(3, 4));
        await until("the lines after the cut", async () => (await count()) === 7);
        const { code, stderr } = await stopCli(cli);
        assert.equal(code, 0, stderr);
      } finally {
        cli.kill("SIGKILL");
        await created.dispose();
      }
    });
  });
}
