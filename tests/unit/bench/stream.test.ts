import assert from "node:assert/strict";
import { test } from "node:test";
import { EVENTS_PER_ORDER, Stream } from "../../../bench/stream.ts";
import { validateEvent } from "../../../lib/events/validate.ts";

test("the soak's stream gives every event its own id, in the form collectors' ids take", () => {
  const stream = new Stream(200);
  const at = Date.UTC(2026, 11, 5, 12);
  const events = [...stream.orders(40_000, at), ...stream.orders(1_000, at + 60_000)];
  const ids = new Set(events.map((e) => e.id));
  assert.equal(ids.size, events.length);
  for (const id of ids) assert.match(id, /^[a-z][a-z0-9-]*:[0-9a-f]{32}$/);
  assert.ok(Math.abs(events.length / 41_000 - (4 + 2 / 50 + 1 / 200 + 1 / 800)) < 0.001, String(events.length));
  assert.ok(EVENTS_PER_ORDER > 4 && EVENTS_PER_ORDER < 4.05);
  for (const event of events.slice(0, 500)) assert.equal(validateEvent(event).ok, true, event.id);
});
