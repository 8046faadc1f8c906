import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { requireIngestToken } from "../../../lib/api/auth.ts";
import { ApiError } from "../../../lib/api/errors.ts";
import { otlpPortFromEnv } from "../../../lib/api/otlp-port.ts";
import { maxBodyBytes, readBodyLimited } from "../../../lib/api/read-body.ts";

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/api/v1/events", { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

function streamOf(chunks: number, chunkSize: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ >= chunks) controller.close();
      else controller.enqueue(new Uint8Array(chunkSize).fill(0x61));
    },
  });
}

describe("ingest token", () => {
  it("lets everything through when no token is configured", () => {
    assert.doesNotThrow(() => requireIngestToken(post("x"), undefined));
  });

  it("answers a missing or wrong token with unauthorized and a challenge", () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer nope" }, { authorization: "Basic c2VjcmV0" }];
    for (const headers of attempts) {
      assert.throws(
        () => requireIngestToken(post("x", headers), "s3cret"),
        (error: unknown) => error instanceof ApiError && error.code === "unauthorized" && error.headers["www-authenticate"]!.startsWith("Bearer"),
      );
    }
    assert.doesNotThrow(() => requireIngestToken(post("x", { authorization: "Bearer s3cret" }), "s3cret"));
  });
});

describe("body size limit", () => {
  it("defaults to 10 MiB and rejects a nonsense setting", () => {
    assert.equal(maxBodyBytes({}), 10 * 1024 * 1024);
    assert.equal(maxBodyBytes({ DUPSCOPE_MAX_BODY_BYTES: "2048" }), 2048);
    assert.throws(() => maxBodyBytes({ DUPSCOPE_MAX_BODY_BYTES: "10MB" }), /positive whole number/);
  });

  it("refuses a declared Content-Length over the limit before reading", async () => {
    await assert.rejects(readBodyLimited(post("small", { "content-length": "999999" }), 100), (e: unknown) => e instanceof ApiError && e.code === "payload_too_large");
  });

  it("stops reading a streamed body as soon as it passes the limit", async () => {
    await assert.rejects(readBodyLimited(post(streamOf(1000, 1024)), 10 * 1024), (e: unknown) => e instanceof ApiError && e.code === "payload_too_large");
    assert.equal((await readBodyLimited(post(streamOf(10, 1024)), 10 * 1024)).length, 10 * 1024);
  });
});

describe("DUPSCOPE_OTLP_PORT", () => {
  it("is off unless set, a TCP port when set, and refused with its value otherwise", () => {
    assert.equal(otlpPortFromEnv({}), null);
    assert.equal(otlpPortFromEnv({ DUPSCOPE_OTLP_PORT: " " }), null);
    assert.equal(otlpPortFromEnv({ DUPSCOPE_OTLP_PORT: "4318" }), 4318);
    for (const bad of ["0", "65536", "43l8", "-1", "4318.5"]) assert.throws(() => otlpPortFromEnv({ DUPSCOPE_OTLP_PORT: bad }), new RegExp(`TCP port .*"${bad.replace(".", "\\.")}"`));
  });
});
