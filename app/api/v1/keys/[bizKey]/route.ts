import { ApiError, withApi } from "@/lib/api/errors.ts";
import { parseKeyQuery } from "@/lib/api/key-query.ts";
import { keyReport, limitContext } from "@/lib/api/key-report.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (request: Request, route: { params: Promise<{ bizKey: string }> }) => {
  const { bizKey } = await route.params;
  const { locale, utcOffsetMinutes, contextLimit } = parseKeyQuery(new URL(request.url));
  const report = await keyReport((await getStore()).driver, bizKey, { locale, ...(utcOffsetMinutes !== undefined ? { utcOffsetMinutes } : {}) });
  if (!report) throw new ApiError("not_found", `no events for bizKey "${bizKey}" (keys are case-sensitive; was it ingested?)`);
  return Response.json(contextLimit === undefined ? report : limitContext(report, contextLimit));
});
