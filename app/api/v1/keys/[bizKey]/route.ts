import { withApi } from "@/lib/api/errors.ts";
import { parseKeyQuery } from "@/lib/api/params.ts";
import { NotFoundError } from "@/lib/errors.ts";
import { getStore } from "@/lib/store/index.ts";
import { keyReport, limitContext } from "@/lib/views/key-report.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (request: Request, route: { params: Promise<{ bizKey: string }> }) => {
  const started = performance.now();
  const { bizKey } = await route.params;
  const { render, contextLimit } = parseKeyQuery(new URL(request.url));
  const report = await keyReport((await getStore()).driver, bizKey, render);
  if (!report) throw new NotFoundError(`no events for bizKey "${bizKey}" (keys are case-sensitive; was it ingested?)`);
  const response = Response.json(contextLimit === undefined ? report : limitContext(report, contextLimit));
  // What the handler took (read, diagnosis, wording, JSON), so a client can tell it from the framework and the
  // network; browsers show it in their network panel, and bench:lookup reads it.
  response.headers.set("server-timing", `handler;dur=${(performance.now() - started).toFixed(2)}`);
  return response;
});
