import type { Outputs } from "../records.ts";
import { formatBrokerEntry } from "./broker-log.ts";
import { formatClientEntry } from "./client-log.ts";
import { formatDedupRecord } from "./dedup-log.ts";
import { formatTraceMessage } from "./trace.ts";

/** Every data file of a run as text, each in time order, with the `dupscope ingest` format and instance it needs. */

export interface SimFile {
  path: string;
  /** A collectors/registry.ts format name. */
  format: string;
  /** For `--instance`: the process (ip@pid) or broker the file belongs to. */
  instance?: string;
  lines: number;
  text: string;
}

function file(path: string, format: string, lines: string[], instance?: string): SimFile {
  return { path, format, ...(instance === undefined ? {} : { instance }), lines: lines.length, text: lines.length > 0 ? `${lines.join("\n")}\n` : "" };
}

function byName<T>(map: ReadonlyMap<string, T>): [string, T][] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function renderFiles(out: Outputs): SimFile[] {
  const files: SimFile[] = [];
  const trace = [...out.trace].sort((a, b) => a.storeTimestamp - b.storeTimestamp);
  files.push(file("trace.ndjson", "rocketmq-trace", trace.map(formatTraceMessage)));
  for (const [path, log] of byName(out.client)) {
    const entries = [...log.entries].sort((a, b) => a.at - b.at);
    files.push(file(path, "rocketmq-client-log", entries.flatMap((e) => formatClientEntry(e, log.pid)), log.instance));
  }
  for (const [path, log] of byName(out.broker)) {
    const entries = [...log.entries].sort((a, b) => a.at - b.at);
    files.push(file(path, "rocketmq-broker-log", entries.map(formatBrokerEntry), log.broker));
  }
  for (const [path, log] of byName(out.dedup)) {
    const records = [...log.records].sort((a, b) => a.ts - b.ts);
    files.push(file(path, "dedup-log", records.map(formatDedupRecord), log.instance));
  }
  return files.filter((f) => f.lines > 0);
}
