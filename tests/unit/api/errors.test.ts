import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { ApiError, withApi } from "../../../lib/api/errors.ts";
import { MalformedBodyError, UnsupportedMediaTypeError } from "../../../lib/api/ingest-body.ts";
import { parseDuplicatesQuery, parseKeyQuery } from "../../../lib/api/params.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../../../lib/errors.ts";

async function answer(error: unknown): Promise<{ status: number; body: { error: { code: string; message: string } }; headers: Headers }> {
  const response = await withApi(async () => {
    throw error;
  })();
  return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } }, headers: response.headers };
}

describe("withApi: the one place a failure becomes a status", () => {
  it("maps the domain's errors without the domain knowing HTTP", async () => {
    assert.deepEqual((await answer(new NotFoundError("no alert rule r1"))).body, { error: { code: "not_found", message: "no alert rule r1" } });
    assert.equal((await answer(new NotFoundError("x"))).status, 404);
    assert.equal((await answer(new ConflictError("the store already holds events"))).status, 409);
    assert.equal((await answer(new InvalidInputError('name: rule "a" already exists'))).status, 422);
    assert.equal((await answer(new UnsupportedMediaTypeError("text/csv is not accepted"))).status, 415);
    assert.equal((await answer(new MalformedBodyError("not a JSON array"))).status, 400);
  });

  it("answers a failed schema with 422 naming every field", async () => {
    const parsed = z.object({ limit: z.number().max(500), cause: z.enum(["a", "b"]) }).safeParse({ limit: 900, cause: "c" });
    assert.ok(!parsed.success);
    const { status, body } = await answer(parsed.error);
    assert.equal(status, 422);
    assert.equal(body.error.code, "unprocessable");
    assert.match(body.error.message, /^limit: .*; cause: /);
  });

  it("keeps an ApiError's own status and headers", async () => {
    const { status, headers } = await answer(new ApiError("too_many_requests", "slow down", { "retry-after": "30" }));
    assert.equal(status, 429);
    assert.equal(headers.get("retry-after"), "30");
  });

  it("answers a store failure a retry can fix with 503 and Retry-After (a deadlock, a lost connection)", async () => {
    for (const code of ["40P01", "40001", "ECONNREFUSED", "57P01", "53300"]) {
      const { status, headers } = await answer(Object.assign(new Error(`store failed (${code})`), { code }));
      assert.equal(status, 503, code);
      assert.equal(headers.get("retry-after"), "1");
    }
    assert.equal((await answer(new Error("timeout exceeded when trying to connect"))).status, 503, "an exhausted pool");
    assert.equal((await answer(Object.assign(new Error("could not extend file: No space left on device"), { code: "53100" }))).status, 503, "a full disk");
    assert.equal((await answer(Object.assign(new Error("unique violation"), { code: "23505" }))).status, 500);
  });

  it("hides anything else behind a generic 500", async () => {
    const { status, body } = await answer(new TypeError("cannot read properties of undefined (secret detail)"));
    assert.equal(status, 500);
    assert.equal(body.error.code, "internal");
    assert.doesNotMatch(body.error.message, /secret/);
  });
});

describe("query strings", () => {
  it("fail with the field named, through withApi", async () => {
    const url = new URL("http://x/api/v1/duplicates?limit=0&cause=nonsense");
    const { status, body } = await answer(captured(() => parseDuplicatesQuery(url)));
    assert.equal(status, 422);
    assert.match(body.error.message, /limit/);
    assert.match(body.error.message, /cause/);
  });

  it("refuse parameters they do not know", async () => {
    const { status, body } = await answer(captured(() => parseKeyQuery(new URL("http://x/api/v1/keys/k?contxt=5"))));
    assert.equal(status, 422);
    assert.match(body.error.message, /contxt/);
  });

  it("read the key page's defaults", () => {
    assert.deepEqual(parseKeyQuery(new URL("http://x/api/v1/keys/k?lang=zh-CN&context=all")), { render: { locale: "zh-CN" } });
    assert.equal(parseKeyQuery(new URL("http://x/api/v1/keys/k")).contextLimit, 200);
  });
});

function captured(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected the parser to throw");
}
