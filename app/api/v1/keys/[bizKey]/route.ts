import { ApiError, withApi } from "@/lib/api/errors.ts";
import { keyReport, localeFrom } from "@/lib/api/key-report.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (request: Request, route: { params: Promise<{ bizKey: string }> }) => {
  const { bizKey } = await route.params;
  const url = new URL(request.url);
  const offset = url.searchParams.get("utcOffsetMinutes");
  const report = await keyReport((await getStore()).driver, bizKey, {
    locale: localeFrom(url.searchParams.get("lang")),
    ...(offset !== null && /^-?\d{1,4}$/.test(offset) ? { utcOffsetMinutes: Number(offset) } : {}),
  });
  if (!report) throw new ApiError("not_found", `no events for bizKey "${bizKey}" (keys are case-sensitive; was it ingested?)`);
  return Response.json(report);
});
