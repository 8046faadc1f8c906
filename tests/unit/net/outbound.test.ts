import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { postJson } from "../../../lib/alerts/channels/http.ts";
import { addressProblem, checkedUrl, outboundPost, OutboundRefused } from "../../../lib/net/outbound.ts";
import { withRedis } from "../../../lib/redis/connect.ts";

describe("outbound requests", () => {
  let server: Server;
  let base: string;

  before(async () => {
    server = createServer((request, response) => {
      if (request.url === "/big") {
        response.writeHead(200);
        for (let i = 0; i < 64; i++) response.write("x".repeat(16 * 1024));
        return response.end();
      }
      if (request.url === "/slow") return void setTimeout(() => response.end("late"), 2000);
      if (request.url === "/redirect") return void response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      request.resume();
      request.on("end", () => response.end("ok"));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("refuses schemes other than the ones named", () => {
    for (const url of ["file:///etc/passwd", "gopher://x/", "ftp://example.com/"]) assert.throws(() => checkedUrl(url, ["http", "https"]), OutboundRefused);
    assert.throws(() => checkedUrl("not a url", ["http"]), /not a valid URL/);
  });

  it("refuses link-local and cloud-metadata addresses, written any way, unless the allow-list names them", () => {
    for (const address of ["169.254.169.254", "::ffff:169.254.169.254", "fe80::1", "fd00:ec2::254"]) assert.match(addressProblem("metadata", address, { allow: [] })!, /link-local or cloud-metadata/, address);
    for (const address of ["127.0.0.1", "10.0.0.5", "::1", "93.184.216.34"]) assert.equal(addressProblem("h", address, { allow: [] }), undefined, address);
    assert.equal(addressProblem("metadata", "169.254.169.254", { allow: ["169.254.0.0/16"] }), undefined);
    assert.equal(addressProblem("metadata.internal", "169.254.169.254", { allow: ["metadata.internal"] }), undefined);
  });

  it("refuses a literal metadata address before connecting, and says why in the delivery error", async () => {
    await assert.rejects(outboundPost("http://169.254.169.254/latest/meta-data/", "{}"), OutboundRefused);
    await assert.rejects(postJson("http://169.254.169.254/hook?token=secret", "{}"), /^Error: POST http:\/\/169\.254\.169\.254\/hook\?… refused: .*DUPSCOPE_OUTBOUND_ALLOW/);
  });

  it("reads at most the response cap, gives up after the timeout, and does not follow redirects", async () => {
    const big = await outboundPost(`${base}/big`, "{}", { maxResponseBytes: 1000 });
    assert.equal(big.text.length, 1000);
    await assert.rejects(outboundPost(`${base}/slow`, "{}", { timeoutMs: 200 }), /no answer within 200 ms/);
    const redirect = await outboundPost(`${base}/redirect`, "{}");
    assert.equal(redirect.status, 302);
    await assert.rejects(postJson(`${base}/redirect`, "{}"), /answered 302/);
    assert.deepEqual(await outboundPost(`${base}/hook`, "{}"), { status: 200, text: "ok" });
  });

  it("keeps the Redis inspector to redis:// and rediss:// URLs and off metadata addresses", async () => {
    await assert.rejects(withRedis("http://127.0.0.1:6379", async () => 1), /http: URLs are not allowed here; use redis or rediss/);
    await assert.rejects(withRedis("redis://169.254.169.254:6379", async () => 1), /link-local or cloud-metadata/);
  });
});
