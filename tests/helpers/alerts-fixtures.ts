import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { after, before } from "node:test";
import type { EventInput, NormalizedEvent } from "../../lib/events/model.ts";
import { orderStory, T0, validated } from "./events.ts";

/**
 * What the alert tests share: a leak to fire on, and real local receivers for the alert channels (an HTTP server
 * standing in for every robot and webhook, and SMTP).
 */

/** The order story with the second delivery passing Redis too: a leaked rebalance duplicate, a minute before `now`, in `group` if given. */
export function leakStory(bizKey: string, now: number, group?: string): NormalizedEvent[] {
  return validated(leakStoryInput(bizKey, now, group));
}

/** The same story as the records one POSTs to /api/v1/events. */
export function leakStoryInput(bizKey: string, now: number, group?: string): EventInput[] {
  return orderStory(bizKey).map((e) => {
    const event = { ...e, ts: (e.ts as number) - T0 + now - 60_000, ...(group !== undefined && e.group !== undefined ? { group } : {}) };
    return e.kind === "dedup" && e.instance === "10.0.0.7@88" ? { ...event, detail: { layer: "redis", decision: "pass" } } : event;
  });
}

export interface Received {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
}

/** One alert of a generic webhook notice (version 2, lib/alerts/channels/payloads.ts). */
export interface WebhookAlert {
  event: string;
  status: string;
  labels: Record<string, string>;
  summary: string;
  keys: { bizKey: string; url: string }[];
  links: { alert: string; group: string | null; runbook: string | null; acknowledge: string | null };
}

/** The alerts the generic webhook received at `path`, in order, whatever notices carried them. */
export function webhookAlerts(receiver: HttpReceiver, path?: string): WebhookAlert[] {
  return receiver.received.filter((r) => path === undefined || r.path === path).flatMap((r) => (r.body.alerts as WebhookAlert[] | undefined) ?? []);
}

export interface HttpReceiver {
  url: string;
  received: Received[];
  /** The next `times` requests to `path` are answered with HTTP `status`. */
  failNext(path: string, times: number, status?: number): void;
  close(): Promise<void>;
}

/** What each kind of robot answers on success. */
function answerFor(path: string): string {
  if (path.startsWith("/dingtalk") || path.startsWith("/wecom")) return JSON.stringify({ errcode: 0, errmsg: "ok" });
  if (path.startsWith("/feishu")) return JSON.stringify({ code: 0, msg: "success", data: {} });
  if (path.startsWith("/slack")) return "ok";
  return JSON.stringify({ ok: true });
}

/** A receiver for the tests of one describe block, started before them and closed after. */
export function useHttpReceiver(): () => HttpReceiver {
  let receiver: HttpReceiver | undefined;
  before(async () => {
    receiver = await startHttpReceiver();
  });
  after(async () => {
    await receiver?.close();
  });
  return () => receiver!;
}

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const received: Received[] = [];
  const failures = new Map<string, { times: number; status: number }>();
  const server = createHttpServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (raw += chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://receiver");
      const failure = failures.get(url.pathname);
      if (failure && failure.times > 0) {
        failure.times--;
        res.writeHead(failure.status, { "content-type": "text/plain" }).end("receiver told to fail");
        return;
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // Recorded as raw text only.
      }
      received.push({ path: url.pathname, query: url.searchParams, headers: req.headers, raw, body });
      res.writeHead(200, { "content-type": "application/json" }).end(answerFor(url.pathname));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    failNext(path, times, status = 500) {
      failures.set(path, { times, status });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface Mail {
  from: string;
  to: string[];
  data: string;
}

export interface SmtpReceiver {
  port: number;
  mails: Mail[];
  close(): Promise<void>;
}

/** Just enough SMTP (RFC 5321 without extensions) for nodemailer to deliver a message in plain text. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: Mail[] = [];
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.setEncoding("utf8");
    let buffer = "";
    let mail: Mail = { from: "", to: [], data: "" };
    let inData = false;
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 localhost test SMTP");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          mail.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          mails.push(mail);
          mail = { from: "", to: [], data: "" };
          reply("250 OK queued");
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") reply("250 localhost");
        else if (verb === "MAIL") (mail.from = line.replace(/^MAIL FROM:\s*/i, "")), reply("250 OK");
        else if (verb === "RCPT") mail.to.push(line.replace(/^RCPT TO:\s*/i, "")), reply("250 OK");
        else if (verb === "DATA") (inData = true), reply("354 end with <CRLF>.<CRLF>");
        else if (verb === "QUIT") reply("221 bye"), socket.end();
        else if (verb === "RSET" || verb === "NOOP") reply("250 OK");
        else reply("502 not implemented");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    mails,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
