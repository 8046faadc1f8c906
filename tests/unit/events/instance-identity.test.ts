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
});
