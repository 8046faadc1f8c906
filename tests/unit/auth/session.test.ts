import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { authConfig, cookieIsSecure, issueSession, passwordMatches, safeNext, sessionCookie, sessionValid } from "../../../lib/auth/session.ts";

const config = authConfig({ DUPSCOPE_PASSWORD: "correct horse" })!;
const NOW = Date.UTC(2026, 10, 30, 12);

describe("login sessions", () => {
  it("is off without DUPSCOPE_PASSWORD", () => {
    assert.equal(authConfig({}), undefined);
    assert.equal(authConfig({ DUPSCOPE_PASSWORD: "" }), undefined);
  });

  it("checks the password", () => {
    assert.equal(passwordMatches(config, "correct horse"), true);
    assert.equal(passwordMatches(config, "correct hors"), false);
    assert.equal(passwordMatches(config, ""), false);
  });

  it("accepts its own token until it expires", () => {
    const token = issueSession(config, NOW, 60_000);
    assert.equal(sessionValid(config, token, NOW + 59_999), true);
    assert.equal(sessionValid(config, token, NOW + 60_000), false);
    assert.equal(sessionValid(config, undefined, NOW), false);
  });

  it("refuses a token that was changed, signed with another password, or made up", () => {
    const token = issueSession(config, NOW, 60_000);
    const [expires, nonce, sig] = token.split(".");
    assert.equal(sessionValid(config, `${Number(expires) + 3_600_000}.${nonce}.${sig}`, NOW), false, "a longer expiry breaks the signature");
    assert.equal(sessionValid(authConfig({ DUPSCOPE_PASSWORD: "new password" })!, token, NOW), false, "changing the password ends sessions");
    assert.equal(sessionValid(config, "9999999999999.x.y", NOW), false);
    assert.equal(sessionValid(config, "garbage", NOW), false);
  });

  it("DUPSCOPE_SESSION_SECRET keeps sessions across a password change", () => {
    const a = authConfig({ DUPSCOPE_PASSWORD: "one", DUPSCOPE_SESSION_SECRET: "s3cret" })!;
    const b = authConfig({ DUPSCOPE_PASSWORD: "two", DUPSCOPE_SESSION_SECRET: "s3cret" })!;
    assert.equal(sessionValid(b, issueSession(a, NOW), NOW), true);
  });

  it("sets an HTTP-only cookie, Secure unless served over plain HTTP on loopback", () => {
    assert.match(sessionCookie("t", true), /^dupscope_session=t; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure$/);
    assert.equal(cookieIsSecure(new URL("http://127.0.0.1:3000/"), null), false);
    assert.equal(cookieIsSecure(new URL("http://localhost:3000/"), null), false);
    assert.equal(cookieIsSecure(new URL("http://dupscope.internal/"), null), true);
    assert.equal(cookieIsSecure(new URL("http://127.0.0.1:3000/"), "https"), true);
  });

  it("only follows a local path after login", () => {
    assert.equal(safeNext("/keys/ORDER-1?lang=en"), "/keys/ORDER-1?lang=en");
    for (const bad of ["//evil.example/x", "https://evil.example", "/\\evil.example", "", null]) assert.equal(safeNext(bad), "/");
  });
});
