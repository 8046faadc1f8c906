import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalInstance, sameProcess } from "../../../lib/events/instance.ts";

describe("canonical instance identity", () => {
  it("drops the ephemeral port of a trace bornHost", () => {
    assert.deepEqual(canonicalInstance("10.0.0.5:53211"), { canonical: "10.0.0.5", host: "10.0.0.5" });
  });

  it("keeps ip@pid of a RocketMQ clientId and drops the nanotime and unit name", () => {
    assert.equal(canonicalInstance("10.0.0.5@12345#981237123456").canonical, "10.0.0.5@12345");
    assert.equal(canonicalInstance("10.0.0.5@DEFAULT@unitA").canonical, "10.0.0.5@DEFAULT");
  });

  it("leaves application-chosen names alone", () => {
    assert.equal(canonicalInstance(" pay-consumer-7f9c ").canonical, "pay-consumer-7f9c");
  });

  it("matches a host-only identity with an ip@pid one but keeps two pids on one host apart", () => {
    assert.ok(sameProcess("10.0.0.5", "10.0.0.5@12345"));
    assert.ok(!sameProcess("10.0.0.5@12345", "10.0.0.5@777"));
    assert.ok(!sameProcess("10.0.0.5", "10.0.0.6@1"));
  });

  it("answers a name asked again the same, past the point where its memory of answers is cleared, and no caller can change an answer", () => {
    const first = canonicalInstance("10.0.0.5@12345#1");
    for (let i = 0; i < 12_000; i++) canonicalInstance(`10.0.${i >> 8}.${i & 255}:${40_000 + (i % 1000)}`);
    assert.deepEqual(canonicalInstance("10.0.0.5@12345#1"), first);
    assert.deepEqual(canonicalInstance("10.0.46.223:40999"), { canonical: "10.0.46.223", host: "10.0.46.223" });
    assert.throws(() => {
      (canonicalInstance("10.0.0.5@12345#1") as { host: string }).host = "elsewhere";
    }, TypeError);
  });
});
