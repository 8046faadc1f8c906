import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { backends } from "../helpers/stores.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";

const PASSWORD = "throttle correct horse";

describe("login throttle over HTTP", () => {
  let server: RunningServer;
  let dispose: () => Promise<void>;

  before(async () => {
    const created = await backends[0]!.create();
    dispose = created.dispose;
    server = await startServer({ ...created.env, DUPSCOPE_PASSWORD: PASSWORD, DUPSCOPE_SESSION_SECRET: "s".repeat(32), DUPSCOPE_LOGIN_MAX_FAILURES: "3" });
  });
  after(async () => {
    await server?.stop();
    await dispose?.();
  });

  const login = (password: string, address: string) =>
    fetch(`${server.url}/api/v1/session`, {
      method: "POST",
      body: JSON.stringify({ password }),
      headers: { "content-type": "application/json", "x-forwarded-for": address },
    });

  it("answers parallel guesses past the limit with 429 and Retry-After, and keeps other addresses out of it", async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => login("guess", "198.51.100.7")));
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [...Array(3).fill(401), ...Array(9).fill(429)]);
    const locked = answers.find((r) => r.status === 429)!;
    assert.ok(Number(locked.headers.get("retry-after")) > 0);
    assert.equal((await locked.json()).error.code, "too_many_requests");
    assert.equal((await login(PASSWORD, "198.51.100.7")).status, 429, "even the right password waits out the lockout");
    assert.equal((await login(PASSWORD, "198.51.100.8")).status, 204, "another address signs in");
  });

  it("sends a locked-out browser back to the login page, which says why", async () => {
    const form = (password: string) =>
      fetch(`${server.url}/api/v1/session`, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ password, next: "/" }),
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "198.51.100.7" },
      });
    const response = await form("guess");
    assert.equal(response.status, 303);
    assert.match(response.headers.get("location")!, /^\/login\?error=locked&retry=\d+/);
    const page = await (await fetch(`${server.url}${response.headers.get("location")}`)).text();
    assert.match(page, /Too many wrong passwords: try again in \d+ min\./);
  });
});
