import { z } from "zod";
import { text, table, type Table } from "./record.ts";

/**
 * Where the business key of a RabbitMQ message lives. AMQP has no business-key field, so each deployment says:
 *
 *   message_id        properties.message_id (the default; then bizKey and msgId are the same)
 *   correlation_id    properties.correlation_id
 *   header:<name>     a header of the message, e.g. header:x-order-id
 *   json:<path>       a JSONPath-like path into a JSON body: json:$.orderId, json:$.order.id, json:$.items[0].sku,
 *                     json:$['order-id']
 */

export type KeySpec =
  | { from: "message_id" }
  | { from: "correlation_id" }
  | { from: "header"; name: string }
  | { from: "json"; path: (string | number)[] };

const SEGMENT = /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\])/;

/** `$.a.b[0]['c-d']` into ["a", "b", 0, "c-d"]; null when the text is not such a path. */
export function parseJsonPath(path: string): (string | number)[] | null {
  let rest = path.trim();
  if (rest.startsWith("$")) rest = rest.slice(1);
  else if (/^[A-Za-z_]/.test(rest)) rest = `.${rest}`;
  const segments: (string | number)[] = [];
  while (rest !== "") {
    const m = SEGMENT.exec(rest);
    if (!m) return null;
    segments.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3] ?? m[4])!);
    rest = rest.slice(m[0].length);
  }
  return segments.length > 0 ? segments : null;
}

export const keySpecSchema = z.string().transform((raw, ctx): KeySpec => {
  const value = raw.trim();
  if (value === "message_id" || value === "correlation_id") return { from: value };
  if (value.startsWith("header:") && value.length > "header:".length) return { from: "header", name: value.slice("header:".length) };
  if (value.startsWith("json:")) {
    const path = parseJsonPath(value.slice("json:".length));
    if (path !== null) return { from: "json", path };
  }
  ctx.addIssue({ code: "custom", message: `"${raw}" is not a key source: use message_id, correlation_id, header:<name> or json:$.path.to.key` });
  return z.NEVER;
});

export const DEFAULT_KEY: KeySpec = { from: "message_id" };

/** The text form keySpecSchema reads back into the same spec. */
export function formatKeySpec(spec: KeySpec): string {
  switch (spec.from) {
    case "message_id":
    case "correlation_id":
      return spec.from;
    case "header":
      return `header:${spec.name}`;
    case "json":
      return `json:$${spec.path.map((s) => (typeof s === "number" ? `[${s}]` : /^[A-Za-z_$][\w$-]*$/.test(s) ? `.${s}` : s.includes("'") ? `["${s}"]` : `['${s}']`)).join("")}`;
  }
}

/** The bizKey column holds at most 512 characters; a longer "key" is not a business key. */
const MAX_KEY = 512;

/** What the extractor reads from: the message's AMQP properties (with their headers) and its body. */
export interface KeySource {
  properties: Table;
  body: () => Buffer;
}

function walk(value: unknown, path: (string | number)[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof segment === "number") current = Array.isArray(current) ? current[segment] : undefined;
    else current = table(current)[segment];
    if (current === undefined) return undefined;
  }
  return current;
}

function jsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

export function extractKey(spec: KeySpec, source: KeySource): string | null {
  let value: string | null;
  switch (spec.from) {
    case "message_id":
      value = text(source.properties.message_id);
      break;
    case "correlation_id":
      value = text(source.properties.correlation_id);
      break;
    case "header":
      value = text(table(source.properties.headers)[spec.name]);
      break;
    case "json":
      value = text(walk(jsonBody(source.body()), spec.path));
      break;
  }
  const key = value?.trim() ?? "";
  return key === "" || key.length > MAX_KEY ? null : key;
}
