import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP } from "node:net";
import { formatDuration } from "../format/duration.ts";

/**
 * Every request dupscope makes on a user's say-so (alert channels, the Redis inspector) goes through here: only the
 * schemes the caller names, never to link-local or cloud-metadata addresses (169.254.0.0/16, fe80::/10,
 * fd00:ec2::254 — where an instance's credentials live) unless `DUPSCOPE_OUTBOUND_ALLOW` names the host or
 * network, with a timeout and a cap on what is read back. The address is checked when the socket connects, on the
 * address actually dialled, so a name that resolves differently on the second lookup gains nothing.
 */

export class OutboundRefused extends Error {}

const FORBIDDEN = new BlockList();
FORBIDDEN.addSubnet("169.254.0.0", 16, "ipv4");
FORBIDDEN.addSubnet("fe80::", 10, "ipv6");
FORBIDDEN.addAddress("fd00:ec2::254", "ipv6");

export interface OutboundPolicy {
  /** Hosts (names or addresses) and networks (`10.1.0.0/16`) that may be reached although forbidden by default. */
  allow: string[];
}

export function outboundPolicy(env: Record<string, string | undefined> = process.env): OutboundPolicy {
  return { allow: (env.DUPSCOPE_OUTBOUND_ALLOW ?? "").split(",").map((s) => s.trim()).filter(Boolean) };
}

function allowed(policy: OutboundPolicy, host: string, address: string): boolean {
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  for (const entry of policy.allow) {
    if (entry.toLowerCase() === host.toLowerCase() || entry === address) return true;
    const [net, bits] = entry.split("/");
    if (bits !== undefined && isIP(net!) !== 0) {
      const list = new BlockList();
      list.addSubnet(net!, Number(bits), isIP(net!) === 6 ? "ipv6" : "ipv4");
      if (list.check(address, family)) return true;
    }
  }
  return false;
}

/** IPv4 written as IPv6 (`::ffff:169.254.169.254`) is the IPv4 address it carries. */
function unmapped(address: string): { address: string; family: "ipv4" | "ipv6" } {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return { address: m[1]!, family: "ipv4" };
  return { address, family: isIP(address) === 6 ? "ipv6" : "ipv4" };
}

/** Why `address` (reached as `host`) may not be dialled, or undefined. */
export function addressProblem(host: string, address: string, policy: OutboundPolicy = outboundPolicy()): string | undefined {
  const plain = unmapped(address);
  if (!FORBIDDEN.check(plain.address, plain.family)) return undefined;
  if (allowed(policy, host, plain.address)) return undefined;
  return `${host} is ${plain.address}, a link-local or cloud-metadata address; name it in DUPSCOPE_OUTBOUND_ALLOW to allow it`;
}

/** Parses and checks a URL's scheme; the address is checked when connecting. */
export function checkedUrl(raw: string, schemes: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused("not a valid URL");
  }
  const scheme = url.protocol.replace(/:$/, "");
  if (!schemes.includes(scheme)) throw new OutboundRefused(`${scheme}: URLs are not allowed here; use ${schemes.join(" or ")}`);
  return url;
}

/** Resolves `host` and refuses it when any of its addresses may not be dialled (for clients that dial themselves). */
export async function checkHost(host: string, policy: OutboundPolicy = outboundPolicy()): Promise<void> {
  const name = host.replace(/^\[(.*)\]$/, "$1");
  const addresses = isIP(name) ? [{ address: name, family: isIP(name) }] : await new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(name, { all: true }, (error, found) => (error ? reject(error) : resolve(found))));
  for (const { address } of addresses) {
    const problem = addressProblem(name, address, policy);
    if (problem) throw new OutboundRefused(problem);
  }
}

/** A DNS lookup for http.request that refuses forbidden addresses at connect time. */
function guardedLookup(policy: OutboundPolicy): http.RequestOptions["lookup"] {
  return ((hostname: string, options: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const problem = addressProblem(hostname, address, policy);
        if (problem) return callback(new OutboundRefused(problem), []);
      }
      const all = (options as { all?: boolean }).all;
      if (all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  }) as http.RequestOptions["lookup"];
}

export interface OutboundResponse {
  status: number;
  /** The body, cut at `maxResponseBytes`. */
  text: string;
}

export interface OutboundOptions {
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxResponseBytes?: number;
  policy?: OutboundPolicy;
}

/** POSTs `body` to an http(s) URL under the outbound rules: no redirects followed, bounded in time and in size. */
export async function outboundPost(raw: string, body: string, options: OutboundOptions = {}): Promise<OutboundResponse> {
  const url = checkedUrl(raw, ["http", "https"]);
  const policy = options.policy ?? outboundPolicy();
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  // A literal address is not looked up, so it is checked here.
  if (isIP(host)) {
    const problem = addressProblem(host, host, policy);
    if (problem) throw new OutboundRefused(problem);
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? 64 * 1024;
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...options.headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: guardedLookup(policy),
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          if (size >= maxBytes) return;
          chunks.push(chunk.subarray(0, maxBytes - size));
          size += Math.min(chunk.length, maxBytes - size);
          if (size >= maxBytes) response.destroy();
        });
        const done = () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") });
        response.on("end", done);
        response.on("close", done);
        response.on("error", (error) => (size >= maxBytes ? done() : reject(error)));
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${formatDuration(timeoutMs)}`)), timeoutMs);
    request.on("close", () => clearTimeout(deadline));
    request.on("timeout", () => request.destroy(new Error(`no answer within ${formatDuration(timeoutMs)}`)));
    request.on("error", reject);
    request.end(body);
  });
}
