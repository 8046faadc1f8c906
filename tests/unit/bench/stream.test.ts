import assert from "node:assert/strict";
import { test } from "node:test";
import { Stream } from "../../../bench/stream.ts";
import { validateEvent } from "../../../lib/events/validate.ts";

test("the soak's stream gives every event its own id, in the form collectors' ids take", () => {
  const stream = new Stream(200);
  const at = Date.UTC(2026, 11, 5, 12);
  const events = [...stream.orders(40_000, at), ...stream.orders(1_000, at + 60_000)];
  const ids = new Set(events.map((e) => e.id));
  assert.equal(ids.size, events.length);
  for (const id of ids) assert.match(id, /^[a-z][a-z0-9-]*:[0-9a-f]{32}$/);
  // Four events an order, two more for one in 50, a rebalance line for one in 200 and a broker line for one in 800.
  assert.ok(Math.abs(events.length / 41_000 - (4 + 2 / 50 + 1 / 200 + 1 / 800)) < 0.001, String(events.length));
  for (const event of events.slice(0, 500)) assert.equal(validateEvent(event).ok, true, event.id);
});
