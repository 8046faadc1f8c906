import { after, before, describe, it } from "node:test";
import { startServer, type RunningServer } from "../helpers/server.ts";
import { backends } from "../helpers/stores.ts";
import { assertFor, eventsProperty, formatProperty } from "../helpers/fuzz-properties.ts";

/** The ingest endpoints under hostile input (tests/helpers/fuzz-properties.ts), bounded for CI: ~25 s per property and store. */
const SECONDS = Number(process.env.FUZZ_SECONDS_PER_PROPERTY ?? 25);
const TOKEN = "fuzz-token";

for (const backend of backends) {
  describe(`ingest under hostile input on ${backend.name}`, () => {
    let server: RunningServer;
    let dispose: () => Promise<void>;

    before(async () => {
      const created = await backend.create();
      dispose = created.dispose;
      server = await startServer({ ...created.env, DUPSCOPE_INGEST_TOKEN: TOKEN, DUPSCOPE_DIAGNOSIS_INTERVAL_MS: "0" });
    });
    after(async () => {
      await server?.stop();
      await dispose?.();
    });

    it("POST /api/v1/events: valid lines stored once, every other line reported by number, never a 500", async () => {
      await assertFor(eventsProperty({ url: server.url, token: TOKEN }), SECONDS);
    });

    it("POST /api/v1/ingest/{format} with mutated real lines: 200, rejections within the body, nothing stored twice", async () => {
      await assertFor(formatProperty({ url: server.url, token: TOKEN }), SECONDS);
    });
  });
}
