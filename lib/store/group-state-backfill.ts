import { changesHoldings } from "../diagnosis/holdings.ts";
import { changesMembership } from "../diagnosis/members.ts";
import { factsFor } from "../diagnosis/sources.ts";
import type { SqlDriver } from "./driver.ts";
import { refoldGroup, storeGroupLines } from "./group-members.ts";

/**
 * A store that held raw events before it kept the groups' state (migrations …_group_members, …_group_holdings) has
 * membership and holding lines the ingest journal never read: a broadcasting group's connect lines from last week,
 * say. Diagnosis reads the state, not those lines, so until the consumers connect again such a group would look
 * empty. The migration …_group_state_backfill marks a store that had keyless group lines then (BACKFILL_SETTING);
 * the retention job, before it drops any partition, reads them once into the state and clears the mark. A store made
 * since has no mark: the journal has read every line.
 */
export const BACKFILL_SETTING = "group_state_backfill";

/** Lines read per page: one transaction each, so ingest and the journal's fold are never held up for long. */
const PAGE = 5000;

/** The kinds of every line that may change a membership or a holding (READS in lib/diagnosis/sources.ts). */
const KINDS = [
  ...new Set(
    (["member_opens", "member_closes", "group_emptied", "queue_added", "queue_removed", "partition_lost", "result_set"] as const).flatMap((use) =>
      factsFor(use).facts.map((fact) => fact.slice(0, fact.indexOf("/"))),
    ),
  ),
].sort();

interface Row {
  id: string;
  ts: string | number;
  kind: string;
  action: string | null;
  group_name: string;
}

/** What a backfill read: lines kept as changes and the groups folded again; null when the store needed none. */
export interface BackfillReport {
  lines: number;
  groups: number;
}

export async function backfillGroupState(driver: SqlDriver): Promise<BackfillReport | null> {
  const marked = await driver.query(`SELECT 1 FROM dupscope_settings WHERE name = $1`, [BACKFILL_SETTING]);
  if (marked.length === 0) return null;
  const touched = new Set<string>();
  let lines = 0;
  // Along events_keyless_group_ts_idx, a page at a time after the last line read.
  let after: [string, string, string] = ["", "-9223372036854775808", ""];
  for (;;) {
    const page = await driver.query<Row>(
      `SELECT id, ts, kind, detail->>'action' AS action, group_name FROM events
        WHERE biz_key IS NULL AND group_name IS NOT NULL AND kind = ANY($4::text[]) AND (group_name, ts, id) > ($1, $2::bigint, $3)
        ORDER BY group_name, ts, id LIMIT ${PAGE}`,
      [...after, KINDS],
    );
    if (page.length === 0) break;
    const ids = page.filter((r) => changesMembership(r.kind, r.action, r.group_name, null) || changesHoldings(r.kind, r.action, r.group_name, null)).map((r) => [r.id, Number(r.ts)] as const);
    for (const group of await driver.transaction((tx) => storeGroupLines(tx, ids))) touched.add(group);
    lines += ids.length;
    const last = page[page.length - 1]!;
    after = [last.group_name, String(last.ts), last.id];
  }
  for (const group of [...touched].sort()) await driver.transaction((tx) => refoldGroup(tx, group));
  await driver.run(`DELETE FROM dupscope_settings WHERE name = $1`, [BACKFILL_SETTING]);
  return { lines, groups: touched.size };
}
