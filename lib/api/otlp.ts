import { gunzipSync } from "node:zlib";
import { KeyRulesError, keyRulesFromEnv, type KeyRule } from "../../collectors/otlp-traces/map.ts";
import { ExportTraceServiceResponse, RPC_CODE, Status } from "../../collectors/otlp-traces/protocol.ts";
import { decodeJson, decodeProtobuf } from "../../collectors/otlp-traces/decode.ts";
import { OtlpDecodeError } from "../../collectors/otlp-traces/spans.ts";
import { receiveSpans, type SpansReceived } from "../ingest/receive.ts";
import { logger } from "../log.ts";
import type { Store } from "../store/open.ts";
import { requireIngestToken } from "./auth.ts";
import { ApiError, asApiError, ERROR_STATUS } from "./errors.ts";
import { maxBodyBytes, readBytesLimited, tooLarge } from "./read-body.ts";

/**
 * POST /v1/traces, the OTLP/HTTP trace receiver (opentelemetry-proto docs/specification.md, "OTLP/HTTP"): an SDK's
 * or a Collector's `otlphttp` exporter points here unchanged. Protobuf or JSON, optionally gzip; the answer is an
 * ExportTraceServiceResponse in the request's encoding, with `partialSuccess` counting the spans refused. Failures
 * answer a google.rpc.Status in that encoding, with the status codes OTLP exporters act on (400 and 401 are not
 * retried, 429 and 503 are). A failure can leave part of a large request stored (events are written in chunks of
 * 5,000); the exporter's retry then stores only the rest, as event ids come from trace and span ids.
 */

type Encoding = "protobuf" | "json";

const CONTENT_TYPES: Record<Encoding, string> = { protobuf: "application/x-protobuf", json: "application/json" };

const RPC_FOR_STATUS: Record<number, number> = {
  401: RPC_CODE.UNAUTHENTICATED,
  413: RPC_CODE.RESOURCE_EXHAUSTED,
  429: RPC_CODE.RESOURCE_EXHAUSTED,
  503: RPC_CODE.UNAVAILABLE,
};

/** DUPSCOPE_OTLP_KEYS, read once the first request needs it (the environment does not change under a server). */
let rules: KeyRule[] | undefined;
const keyRules = () => (rules ??= keyRulesFromEnv());

export async function receiveTraces(request: Request, store: () => Promise<Store>): Promise<Response> {
  const encoding = encodingOf(request.headers.get("content-type"));
  try {
    if (encoding === null) {
      throw new ApiError("unsupported_media_type", `content-type must be ${CONTENT_TYPES.protobuf} or ${CONTENT_TYPES.json}, got "${request.headers.get("content-type") ?? ""}"`);
    }
    requireIngestToken(request);
    const body = await bodyOf(request);
    const decoded = encoding === "protobuf" ? decodeProtobuf(body) : decodeJson(body.toString("utf8"));
    const result = await receiveSpans((await store()).driver, decoded, keyRules());
    return success(encoding, result);
  } catch (error) {
    return failure(encoding ?? "json", error);
  }
}

function encodingOf(contentType: string | null): Encoding | null {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === CONTENT_TYPES.protobuf) return "protobuf";
  if (type === CONTENT_TYPES.json) return "json";
  return null;
}

/** The body, gunzipped when the exporter compressed it; the size limit holds for the inflated bytes too. */
async function bodyOf(request: Request): Promise<Buffer> {
  const limit = maxBodyBytes();
  const raw = await readBytesLimited(request, limit);
  const encoding = (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return raw;
  if (encoding !== "gzip") throw new ApiError("unsupported_media_type", `content-encoding must be gzip or none, got "${encoding}"`);
  try {
    return gunzipSync(raw, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(limit);
    throw new OtlpDecodeError(`body is not valid gzip: ${(error as Error).message}`);
  }
}

function success(encoding: Encoding, result: SpansReceived): Response {
  const notes = [
    result.rejected > 0 ? `${result.rejected} of ${result.spans} spans could not be read or stored (see the server log)` : "",
    result.unusable > 0 ? `${result.unusable} messaging spans name no business key or message id (set DUPSCOPE_OTLP_KEYS)` : "",
  ].filter(Boolean);
  // rejectedSpans 0 with a message is OTLP's warning: the exporter logs it and does not retry.
  const body = notes.length > 0 ? { partialSuccess: { rejectedSpans: String(result.rejected), errorMessage: notes.join("; ") } } : {};
  const headers = { "content-type": CONTENT_TYPES[encoding], "x-dupscope-events-stored": String(result.stored) };
  if (encoding === "json") return new Response(JSON.stringify(body), { status: 200, headers });
  const message = ExportTraceServiceResponse.fromObject(body);
  return new Response(Buffer.from(ExportTraceServiceResponse.encode(message).finish()), { status: 200, headers });
}

function failure(encoding: Encoding, error: unknown): Response {
  let status: number;
  let code: number;
  let message: string;
  let headers: Record<string, string> = {};
  const known = error instanceof OtlpDecodeError ? new ApiError("bad_request", error.message) : asApiError(error);
  if (known) {
    // The statuses OTLP exporters act on: 429 and 503 (a store that is down or broke a deadlock) are retried,
    // the rest are not. asApiError maps transient store failures to 503 with Retry-After.
    status = ERROR_STATUS[known.code];
    code = RPC_FOR_STATUS[status] ?? RPC_CODE.INVALID_ARGUMENT;
    message = known.message;
    headers = known.headers;
  } else if (error instanceof KeyRulesError) {
    // The operator's configuration, not the exporter's data: loud in the log and in the answer, and not retried.
    logger.error({ err: error }, "OTLP trace request: DUPSCOPE_OTLP_KEYS is not valid");
    status = 500;
    code = RPC_CODE.INTERNAL;
    message = error.message;
  } else {
    // A bug: 500 is not retried, so one bad batch does not come back forever.
    logger.error({ err: error }, "OTLP trace request failed");
    status = 500;
    code = RPC_CODE.INTERNAL;
    message = "internal error; see the server log";
  }
  const all = { ...headers, "content-type": CONTENT_TYPES[encoding] };
  if (encoding === "json") return new Response(JSON.stringify({ code, message }), { status, headers: all });
  return new Response(Buffer.from(Status.encode(Status.fromObject({ code, message })).finish()), { status, headers: all });
}
