import { keyReport, limitContext, localeFrom, type KeyReport } from "../lib/views/key-report.ts";
import { FatalSinkError } from "../lib/ingest/sink.ts";
import { openPgWriter } from "../lib/store/pg-writer.ts";
import { formatTime } from "../lib/format/time.ts";
import { KeyNotFoundError } from "./errors.ts";

export interface DiagnoseOptions {
  server: string;
  database?: string;
  lang?: string;
  json?: boolean;
  /** Context events to list at most, as the API's `context` parameter; "all" lists every one read. */
  context?: number | "all";
}

async function fromServer(bizKey: string, o: DiagnoseOptions): Promise<KeyReport> {
  const url = new URL(`/api/v1/keys/${encodeURIComponent(bizKey)}`, o.server);
  url.searchParams.set("lang", localeFrom(o.lang));
  if (o.context !== undefined) url.searchParams.set("context", String(o.context));
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new FatalSinkError(`cannot reach ${o.server}: ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)}`);
  }
  if (response.status === 404) throw new KeyNotFoundError(`no events for bizKey "${bizKey}" at ${o.server}`);
  if (!response.ok) throw new FatalSinkError(`${url} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as KeyReport;
}

async function fromDatabase(bizKey: string, url: string, o: DiagnoseOptions): Promise<KeyReport> {
  const driver = await openPgWriter(url);
  try {
    const report = await keyReport(driver, bizKey, { locale: localeFrom(o.lang) });
    if (!report) throw new KeyNotFoundError(`no events for bizKey "${bizKey}" in the database`);
    return o.context === undefined || o.context === "all" ? report : limitContext(report, o.context);
  } finally {
    await driver.close();
  }
}

/** The report as a terminal reader wants it: verdicts first, then evidence, then what data was missing. */
export function formatReport(r: KeyReport): string {
  const lines = [`${r.bizKey}: ${r.events.length} events, ${r.deliveries.length} deliveries, ${r.duplicates.length} duplicates${r.lost.length ? `, ${r.lost.length} lost` : ""}`];
  for (const v of r.duplicates) {
    lines.push("", `• ${v.pair}`, `  ${v.summary}`);
    for (const e of v.evidence) lines.push(`    - ${e.text}`);
  }
  for (const l of r.lost) {
    lines.push("", `• lost message${l.defect ? ` (${l.defect})` : ""}`);
    for (const e of l.evidence) lines.push(`    - ${e.text}`);
  }
  if (r.duplicates.length === 0 && r.lost.length === 0) lines.push("", "no duplicate: every delivery is accounted for");
  if (r.missing.length > 0) lines.push("", "missing data:", ...r.missing.map((m) => `  - ${m.text}`));
  if (r.advice.length > 0) lines.push("", "advice:", ...r.advice.map((a) => `  - ${a.text}`));
  lines.push("", "deliveries:");
  for (const d of r.deliveries) {
    lines.push(`  ${d.id} ${formatTime(d.start, { precision: d.startPrecision })} ${d.group ?? "?"} ${d.instance ?? "?"} retry=${d.retryTimes ?? "?"} consume=${d.consume} effect=${d.effect}`);
  }
  return lines.join("\n");
}

export async function runDiagnose(bizKey: string, o: DiagnoseOptions, out: (line: string) => void): Promise<void> {
  const report = o.database ? await fromDatabase(bizKey, o.database, o) : await fromServer(bizKey, o);
  out(o.json ? JSON.stringify(report, null, 2) : formatReport(report));
}
