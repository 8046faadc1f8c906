import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./server.ts";

/**
 * A real Alertmanager (Debian's prometheus-alertmanager) on a free port, in a directory of its own, with a route
 * that groups by `groupBy` and sends every notification, resolved ones too, to `webhookUrl` at once.
 */

export const ALERTMANAGER = "prometheus-alertmanager";
export const MISSING_ALERTMANAGER = `${ALERTMANAGER} not found: the Alertmanager test runs Debian's prometheus-alertmanager; run npm run setup:test (as root)`;

export const hasAlertmanager = () => spawnSync(ALERTMANAGER, ["--version"], { stdio: "ignore" }).status === 0;

export interface RunningAlertmanager {
  url: string;
  /** Alertmanager's v2 API, answered as JSON. */
  api<T>(method: "GET" | "POST" | "DELETE", route: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export async function startAlertmanager(webhookUrl: string, groupBy: string[]): Promise<RunningAlertmanager> {
  const dir = mkdtempSync(path.join(tmpdir(), "dupscope-am-"));
  const config = path.join(dir, "alertmanager.yml");
  // group_wait and group_interval of a second: notifications follow alerts at once, as the test waits for them.
  writeFileSync(
    config,
    [
      "route:",
      "  receiver: hook",
      `  group_by: ${JSON.stringify(groupBy)}`,
      "  group_wait: 1s",
      "  group_interval: 1s",
      "  repeat_interval: 1h",
      "receivers:",
      "  - name: hook",
      "    webhook_configs:",
      `      - url: ${JSON.stringify(webhookUrl)}`,
      "        send_resolved: true",
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = "";
  // An empty cluster address switches gossip off: one Alertmanager, no second port to find.
  const child: ChildProcess = spawn(
    ALERTMANAGER,
    [`--config.file=${config}`, `--storage.path=${path.join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--cluster.listen-address=", "--log.level=warn"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (log += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Alertmanager exited with ${child.exitCode}:\n${log}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`Alertmanager not ready within 20 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async api<T>(method: "GET" | "POST" | "DELETE", route: string, body?: unknown) {
      const response = await fetch(`${url}/api/v2${route}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`Alertmanager ${method} ${route} answered ${response.status}: ${text}`);
      return (text ? JSON.parse(text) : null) as T;
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
