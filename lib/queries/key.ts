import { keyReport, type KeyReport } from "../api/key-report.ts";
import type { Locale } from "../diagnosis/messages.ts";
import type { SqlDriver } from "../store/driver.ts";
import { toLanes, type Timeline } from "../timeline/to-lanes.ts";

/** The key page: the diagnosis on read (same engine as the API), worded in the page's language, and its lanes. */
export async function keyPage(driver: SqlDriver, bizKey: string, locale: Locale): Promise<{ report: KeyReport; timeline: Timeline } | undefined> {
  const report = await keyReport(driver, bizKey, { locale });
  if (!report) return undefined;
  const cited = [...report.duplicates, ...report.lost].flatMap((v) => v.evidence.flatMap((e) => e.eventIds));
  return { report, timeline: toLanes({ ...report, cited }) };
}
