import { citedEventIds, keyReport, type KeyReport } from "./key-report.ts";
import type { Locale } from "../i18n/locale.ts";
import type { SqlDriver } from "../store/driver.ts";
import { toLanes, type Timeline } from "../timeline/to-lanes.ts";
import { contextRows, type ContextRows } from "./context-rows.ts";
import { contextScope, type ContextWindow } from "../diagnosis/scope.ts";

/**
 * The key page: the diagnosis on read (same engine as the API), worded in the page's language, its lanes, and the
 * context lines worth listing with the windows they were read from: each of the key's events has its own, and a key
 * whose events lie hours apart lists lines hours apart, so the page says which stretches those are.
 */
export async function keyPage(
  driver: SqlDriver,
  bizKey: string,
  locale: Locale,
): Promise<{ report: KeyReport; timeline: Timeline; context: ContextRows; contextWindows: ContextWindow[] } | undefined> {
  const report = await keyReport(driver, bizKey, { locale });
  if (!report) return undefined;
  const cited = citedEventIds(report);
  return {
    report,
    timeline: toLanes({ ...report, cited: [...cited] }),
    context: contextRows(report.context, report.events, cited),
    contextWindows: shownWindows(contextScope(report.events)?.windows ?? []),
  };
}

/**
 * The windows as the page names them, to the second: two that a key's events put less than a second apart would
 * read as one stretch written twice ("11:09:23 – 11:25:04, 11:25:04 – 11:30:04"), so they are named as one.
 */
export function shownWindows(windows: readonly ContextWindow[]): ContextWindow[] {
  const shown: ContextWindow[] = [];
  for (const w of windows) {
    const last = shown.at(-1);
    if (last && w.from - last.to < 1000) last.to = Math.max(last.to, w.to);
    else shown.push({ ...w });
  }
  return shown;
}
