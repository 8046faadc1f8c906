import type { Redis } from "ioredis";

/**
 * The dedup-marker inspector: does the consumer's Redis still hold the marker of a business key, and for how long?
 * And does a group leave markers without a TTL (SETNX without EX: they never expire, and a retry that should run
 * is skipped forever)? Read-only by construction: only EXISTS, PTTL and SCAN are sent.
 *
 * Key patterns name the marker the application writes, with placeholders: `dedup:pay_success:{bizKey}`,
 * `points:{msgId}`, `dedup:{group}:{bizKey}`.
 */

export interface MarkerConfig {
  url: string;
  patterns: string[];
}

/** DEDUP_REDIS_URL and DEDUP_REDIS_KEY_PATTERN (several patterns separated by commas or spaces). */
export function markerConfig(env: Record<string, string | undefined> = process.env): MarkerConfig | undefined {
  const url = env.DEDUP_REDIS_URL?.trim();
  const patterns = (env.DEDUP_REDIS_KEY_PATTERN ?? "").split(/[\s,]+/).filter((p) => p !== "");
  return url && patterns.length > 0 ? { url, patterns } : undefined;
}

export interface KeyFacts {
  bizKey: string;
  msgIds: readonly string[];
  groups: readonly string[];
  topics: readonly string[];
}

const PLACEHOLDER = /\{(bizKey|msgId|group|topic)\}/g;

/** Every Redis key the patterns give for this business key: one per msgId, group or topic a placeholder asks for. */
export function markerKeys(patterns: readonly string[], facts: KeyFacts): string[] {
  const values: Record<string, readonly string[]> = { bizKey: [facts.bizKey], msgId: facts.msgIds, group: facts.groups, topic: facts.topics };
  const keys = patterns.flatMap((pattern) => {
    let expanded = [pattern];
    for (const name of new Set([...pattern.matchAll(PLACEHOLDER)].map((m) => m[1]!))) {
      expanded = expanded.flatMap((partial) => (values[name] ?? []).map((v) => partial.replaceAll(`{${name}}`, v)));
    }
    return expanded;
  });
  return [...new Set(keys)];
}

export interface MarkerState {
  key: string;
  exists: boolean;
  /** Remaining time to live; null when the key has none (it never expires) or does not exist. */
  ttlMs: number | null;
}

export async function inspectMarkers(redis: Redis, keys: readonly string[]): Promise<MarkerState[]> {
  if (keys.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.exists(key).pttl(key);
  const results = (await pipeline.exec()) ?? [];
  return keys.map((key, i) => {
    const [existsErr, exists] = results[2 * i] ?? [];
    const [ttlErr, ttl] = results[2 * i + 1] ?? [];
    if (existsErr) throw existsErr;
    if (ttlErr) throw ttlErr;
    const present = Number(exists) === 1;
    return { key, exists: present, ttlMs: present && Number(ttl) >= 0 ? Number(ttl) : null };
  });
}

const GLOB_SPECIAL = /[*?[\]\\]/g;

/** The SCAN MATCH glob of a pattern: per-key placeholders become `*`, `{group}` the group when one is given. */
export function scanGlob(pattern: string, group?: string): string {
  return pattern
    .split(PLACEHOLDER)
    .map((part, i) => (i % 2 === 0 ? part.replace(GLOB_SPECIAL, (c) => `\\${c}`) : part === "group" && group ? group.replace(GLOB_SPECIAL, (c) => `\\${c}`) : "*"))
    .join("");
}

export interface TtlSample {
  glob: string;
  scanned: number;
  withoutTtl: string[];
  /** The scan stopped at the bound before covering the keyspace. */
  partial: boolean;
}

/**
 * Samples markers matching a pattern and reports those without a TTL. SCAN with a COUNT hint walks the keyspace a
 * slice at a time without blocking Redis; the walk stops after `maxKeys` matches or `maxCalls` calls, whichever
 * comes first, so a big keyspace costs a bounded amount.
 */
export async function sampleWithoutTtl(redis: Redis, pattern: string, o: { group?: string; maxKeys?: number; maxCalls?: number; count?: number } = {}): Promise<TtlSample> {
  const glob = scanGlob(pattern, o.group);
  const maxKeys = o.maxKeys ?? 1000;
  const maxCalls = o.maxCalls ?? 50;
  const found: string[] = [];
  let cursor = "0";
  let calls = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", glob, "COUNT", o.count ?? 500);
    cursor = next;
    calls++;
    found.push(...keys);
  } while (cursor !== "0" && found.length < maxKeys && calls < maxCalls);
  const sample = [...new Set(found)].slice(0, maxKeys);
  const states = await inspectMarkers(redis, sample);
  return { glob, scanned: sample.length, withoutTtl: states.filter((s) => s.exists && s.ttlMs === null).map((s) => s.key), partial: cursor !== "0" };
}
