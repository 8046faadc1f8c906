import http from "node:http";
import { Readable } from "node:stream";
import { logger } from "../log.ts";
import type { Store } from "../store/open.ts";
import { receiveTraces } from "./otlp.ts";

/**
 * DUPSCOPE_OTLP_PORT: the OTLP/HTTP receiver on a port of its own as well, 4318 being OTLP/HTTP's default, so an
 * exporter configured with only a host (`http://dupscope:4318`) reaches it. Unset, POST /v1/traces is served on
 * the dashboard's port only.
 */
export function otlpPortFromEnv(env: Record<string, string | undefined> = process.env): number | null {
  const raw = env.DUPSCOPE_OTLP_PORT?.trim();
  if (!raw) return null;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65_535) throw new Error(`DUPSCOPE_OTLP_PORT must be a TCP port (1-65535), got "${raw}"`);
  return port;
}

function headersOf(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/**
 * Serves POST /v1/traces, and nothing else, on `port`, with the handler of the dashboard's route: the same token,
 * body limit, encodings and answers. Resolves once listening; rejects if the port cannot be had.
 */
export function listenForTraces(port: number, store: () => Promise<Store>): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    void answer(req, res).catch((error: unknown) => {
      logger.error({ err: error }, "OTLP port: request failed");
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("internal error; see the server log\n");
    });
  });
  async function answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? `localhost:${port}`}`);
    if (url.pathname !== "/v1/traces") {
      res.writeHead(404, { "content-type": "text/plain" }).end("this port serves only POST /v1/traces (OTLP/HTTP)\n");
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST", "content-type": "text/plain" }).end("POST only\n");
      return;
    }
    const request = new Request(url, { method: "POST", headers: headersOf(req), body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } as RequestInit);
    const response = await receiveTraces(request, store);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  }
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
