import type { NormalizedEvent } from "../events/model.ts";
import type { DiagnosisInput } from "../diagnosis/types.ts";
import { contextOf, contextScope, msgIdsOf, type ContextScope } from "../diagnosis/scope.ts";
import type { SqlDriver } from "./driver.ts";
import { byTime, EVENT_SELECT, eventFromSql, type EventRowSql } from "./event-rows.ts";

/** Context rows read per merged window at most; a rebalance storm beyond this is cut, and the input says so. */
export const CONTEXT_ROW_LIMIT = 20_000;

export interface StoredDiagnosisInput extends DiagnosisInput {
  contextTruncated: boolean;
}

async function query(driver: SqlDriver, sql: string, params: unknown[]): Promise<NormalizedEvent[]> {
  return (await driver.query<EventRowSql>(sql, params)).map(eventFromSql);
}

/** Merges the keys' context windows per group, so a batch of keys costs one query per busy stretch of a group. */
function mergedWindows(scopes: ContextScope[]): { group: string | null; from: number; to: number }[] {
  const byGroup = new Map<string | null, { from: number; to: number }[]>();
  for (const scope of scopes) {
    // Keyless events without a group (producer resends, lifecycle lines) are looked up by time and host.
    for (const group of [...scope.groups, null]) {
      const list = byGroup.get(group) ?? [];
      list.push({ from: scope.from, to: scope.to });
      byGroup.set(group, list);
    }
  }
  const merged: { group: string | null; from: number; to: number }[] = [];
  for (const [group, windows] of byGroup) {
    windows.sort((a, b) => a.from - b.from);
    let current = { ...windows[0]! };
    for (const w of windows.slice(1)) {
      if (w.from <= current.to) current.to = Math.max(current.to, w.to);
      else {
        merged.push({ group, ...current });
        current = { ...w };
      }
    }
    merged.push({ group, ...current });
  }
  return merged;
}

/**
 * Reads what diagnosis needs for these keys, selected as lib/diagnosis/scope.ts defines: each key's events plus
 * keyless events naming its msgIds, and the keyless context around them. Keys without events are left out.
 */
export async function loadDiagnosisInputs(driver: SqlDriver, bizKeys: string[]): Promise<StoredDiagnosisInput[]> {
  if (bizKeys.length === 0) return [];
  const own = await query(driver, `SELECT ${EVENT_SELECT} FROM events WHERE biz_key = ANY($1::text[])`, [bizKeys]);
  const eventsByKey = new Map<string, NormalizedEvent[]>();
  for (const e of own) {
    const list = eventsByKey.get(e.bizKey!) ?? [];
    list.push(e);
    eventsByKey.set(e.bizKey!, list);
  }
  const allMsgIds = msgIdsOf(own);
  const keylessByMsgId = new Map<string, NormalizedEvent[]>();
  if (allMsgIds.length > 0) {
    for (const e of await query(driver, `SELECT ${EVENT_SELECT} FROM events WHERE biz_key IS NULL AND msg_id = ANY($1::text[])`, [allMsgIds])) {
      const list = keylessByMsgId.get(e.msgId!) ?? [];
      list.push(e);
      keylessByMsgId.set(e.msgId!, list);
    }
  }
  const keyEvents = new Map<string, NormalizedEvent[]>();
  const scopes = new Map<string, ContextScope>();
  for (const [key, events] of eventsByKey) {
    const extra = msgIdsOf(events).flatMap((id) => keylessByMsgId.get(id) ?? []);
    const all = [...events, ...extra].sort(byTime);
    keyEvents.set(key, all);
    scopes.set(key, contextScope(all)!);
  }

  const context: NormalizedEvent[] = [];
  let truncated = false;
  for (const w of mergedWindows([...scopes.values()])) {
    const rows = await query(
      driver,
      `SELECT ${EVENT_SELECT} FROM events WHERE biz_key IS NULL AND ${w.group === null ? "group_name IS NULL" : "group_name = $3"}
         AND ts BETWEEN $1 AND $2 ORDER BY ts LIMIT ${CONTEXT_ROW_LIMIT + 1}`,
      w.group === null ? [w.from, w.to] : [w.from, w.to, w.group],
    );
    if (rows.length > CONTEXT_ROW_LIMIT) truncated = true;
    context.push(...rows.slice(0, CONTEXT_ROW_LIMIT));
  }
  context.sort(byTime);

  return bizKeys.flatMap((bizKey) => {
    const events = keyEvents.get(bizKey);
    if (!events) return [];
    return [{ bizKey, events, context: contextOf(events, context), contextTruncated: truncated }];
  });
}
