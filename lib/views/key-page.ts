import { citedEventIds, keyReport, type KeyReport } from "./key-report.ts";
import type { Locale } from "../i18n/locale.ts";
import type { SqlDriver } from "../store/driver.ts";
import { toLanes, type Timeline } from "../timeline/to-lanes.ts";
import { contextRows, type ContextRows } from "./context-rows.ts";

/**
 * The key page: the diagnosis on read (same engine as the API), worded in the page's language, its lanes, and the
 * context lines worth listing.
 */
export async function keyPage(
  driver: SqlDriver,
  bizKey: string,
  locale: Locale,
): Promise<{ report: KeyReport; timeline: Timeline; context: ContextRows } | undefined> {
  const report = await keyReport(driver, bizKey, { locale });
  if (!report) return undefined;
  const cited = citedEventIds(report);
  return { report, timeline: toLanes({ ...report, cited: [...cited] }), context: contextRows(report.context, report.events, cited) };
}
