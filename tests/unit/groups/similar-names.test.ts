import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { editDistance, similarNames } from "../../../lib/groups/similar-names.ts";

const GROUPS = ["cg_order_paid", "cg_order_created", "cg_pay_notify", "pay-consumer", "inventory-deduct", "points-grant", "cg_refund"];

describe("names similar to a group that matched nothing", () => {
  it("counts edits by code point", () => {
    assert.equal(editDistance("", "abc"), 3);
    assert.equal(editDistance("kitten", "sitting"), 3);
    assert.equal(editDistance("订单组", "订单"), 1);
    assert.equal(editDistance("same", "same"), 0);
  });

  it("offers a mistyped name, ignoring case and swapped separators", () => {
    assert.deepEqual(similarNames("cg_order_piad", GROUPS), ["cg_order_paid"]);
    assert.deepEqual(similarNames("CG-ORDER-PAID", GROUPS), ["cg_order_paid"]);
    assert.deepEqual(similarNames("pay_consumer", GROUPS), ["pay-consumer"]);
  });

  it("offers the names a shortened one starts with first, then those it appears in", () => {
    assert.deepEqual(similarNames("cg_order", GROUPS), ["cg_order_created", "cg_order_paid"]);
    assert.deepEqual(similarNames("pay", GROUPS), ["pay-consumer", "cg_pay_notify"]);
  });

  it("offers nothing for a name unlike any, and never the name itself", () => {
    assert.deepEqual(similarNames("does_not_exist", GROUPS), []);
    assert.deepEqual(similarNames("cg_refund", GROUPS), []);
    assert.deepEqual(similarNames("", GROUPS), []);
  });

  it("keeps to the limit", () => {
    assert.deepEqual(similarNames("cg", GROUPS, 2), ["cg_order_created", "cg_order_paid"]);
  });
});
