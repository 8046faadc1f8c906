import { findFormat, formatNames, type CollectorFormat } from "../../collectors/registry.ts";
import { SNIFF_LINES, sniffFormat, UnknownFormatError } from "../../collectors/sniff.ts";
import type { ParseContext } from "../../collectors/types.ts";
import { parseUtcOffset } from "../../collectors/codecs/log-time.ts";
import { serverPatterns } from "../ingest/patterns-file.ts";
import { receiveText, type TextReceived } from "../ingest/receive.ts";
import type { Store } from "../store/open.ts";
import { requireIngestToken } from "./auth.ts";
import { ApiError } from "./errors.ts";
import { maxBodyBytes, readBodyLimited } from "./read-body.ts";

export interface FormatIngestResponse extends TextReceived {
  /** The format the body was read as: the one named, or the one `auto` told from its first lines. */
  format: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

const QUERY_TEXT = /^[\x20-\x7e]{1,255}$/;

function queryValue(url: URL, name: string): string | undefined {
  const value = url.searchParams.get(name)?.trim();
  if (value === undefined || value === "") return undefined;
  if (!QUERY_TEXT.test(value)) throw new ApiError("bad_request", `${name} must be 1-255 printable ASCII characters`);
  return value;
}

/**
 * POST /api/v1/ingest/{format}: the raw text of a log or an NDJSON export, parsed on the server by the same
 * collector the CLI uses. Same answer, size limit and token rule as /api/v1/events.
 */
export async function ingestFormat(request: Request, formatName: string, store: () => Promise<Store>): Promise<FormatIngestResponse> {
  requireIngestToken(request);
  const named = formatName === "auto" ? undefined : findFormat(formatName);
  if (formatName !== "auto" && !named) throw new ApiError("not_found", `unknown format "${formatName}"; one of: auto, ${formatNames()}`);
  const url = new URL(request.url);
  const date = queryValue(url, "date");
  if (date !== undefined && (!DATE.test(date) || Number.isNaN(Date.parse(date)))) throw new ApiError("bad_request", `date must be a calendar date like 2026-11-30, got "${date}"`);
  const instance = queryValue(url, "instance");
  const utcOffset = queryValue(url, "utcOffset");
  if (utcOffset) {
    try {
      parseUtcOffset(utcOffset);
    } catch (error) {
      throw new ApiError("bad_request", (error as Error).message);
    }
  }
  const receivedAt = Date.now();
  const text = await readBodyLimited(request, maxBodyBytes());
  const format = named ?? sniffBody(text);
  // Lines that print no date take the request's date (in the body's zone); lines with no time, its arrival.
  const ctx: ParseContext = {
    source: queryValue(url, "source") ?? `${format.name}:http`,
    ...(instance ? { instance } : {}),
    ...(utcOffset ? { utcOffset } : {}),
    date: date ?? new Date(receivedAt + parseUtcOffset(utcOffset ?? "Z")).toISOString().slice(0, 10),
    inputTime: receivedAt,
    patterns: serverPatterns(),
  };
  const received = await receiveText((await store()).driver, text, format, ctx);
  return { ...received, format: format.name };
}

function sniffBody(text: string): CollectorFormat {
  const head = text.slice(0, 4 * 1024 * 1024).split("\n", SNIFF_LINES).map((line) => line.replace(/\r$/, ""));
  const sniffed = sniffFormat(head);
  if (!sniffed) throw new ApiError("bad_request", new UnknownFormatError("the body", head.length).message.replace("with --format", "in the path (/api/v1/ingest/{format})"));
  return sniffed.format;
}
