import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clientAddress, LoginThrottle, throttleLimits } from "../../../lib/auth/throttle.ts";

describe("login throttle", () => {
  const limits = { perAddress: 3, global: 5, windowMs: 60_000 };

  it("locks an address out after its failures, until the oldest of them leaves the window", () => {
    let now = 0;
    const throttle = new LoginThrottle(limits, () => now);
    for (let i = 0; i < 3; i++) {
      assert.ok(throttle.admit("10.0.0.1").ok);
      now += 1000;
    }
    const locked = throttle.admit("10.0.0.1");
    assert.deepEqual(locked, { ok: false, scope: "address", retryAfterS: 57, lockedNow: true });
    assert.equal((throttle.admit("10.0.0.1") as { lockedNow: boolean }).lockedNow, false, "one log line per lockout");
    assert.ok(throttle.admit("10.0.0.2").ok, "another address is not locked");
    now = 60_001;
    assert.ok(throttle.admit("10.0.0.1").ok);
  });

  it("counts parallel guesses when they arrive, not when they are answered", () => {
    const throttle = new LoginThrottle(limits, () => 0);
    const answers = Array.from({ length: 10 }, () => throttle.admit("10.0.0.1").ok);
    assert.deepEqual(answers.filter(Boolean).length, 3);
  });

  it("locks every address out once all of them together failed too often", () => {
    const throttle = new LoginThrottle(limits, () => 0);
    for (let i = 0; i < 5; i++) assert.ok(throttle.admit(`10.0.1.${i}`).ok);
    assert.deepEqual(throttle.admit("10.0.2.1"), { ok: false, scope: "global", retryAfterS: 60, lockedNow: true });
  });

  it("forgives an address its failures when the password was right", () => {
    const throttle = new LoginThrottle(limits, () => 0);
    throttle.admit("10.0.0.1");
    throttle.admit("10.0.0.1");
    const third = throttle.admit("10.0.0.1");
    assert.ok(third.ok);
    third.attempt.succeeded();
    assert.ok(throttle.admit("10.0.0.1").ok);
  });

  it("reads its limits from the environment and the client from the first X-Forwarded-For hop", () => {
    assert.deepEqual(throttleLimits({ DUPSCOPE_LOGIN_MAX_FAILURES: "2", DUPSCOPE_LOGIN_MAX_FAILURES_GLOBAL: "9", DUPSCOPE_LOGIN_WINDOW_S: "30" }), { perAddress: 2, global: 9, windowMs: 30_000 });
    assert.deepEqual(throttleLimits({ DUPSCOPE_LOGIN_MAX_FAILURES: "zero" }), { perAddress: 5, global: 100, windowMs: 900_000 });
    assert.equal(clientAddress(new Headers({ "x-forwarded-for": "203.0.113.7, 10.0.0.1" })), "203.0.113.7");
    assert.equal(clientAddress(new Headers()), "unknown");
  });
});
