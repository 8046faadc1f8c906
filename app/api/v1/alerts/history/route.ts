import { withApi } from "@/lib/api/errors.ts";
import { listFirings } from "@/lib/alerts/history.ts";
import { limitParam } from "@/lib/api/params.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (request: Request) => {
  const url = new URL(request.url);
  const ruleId = url.searchParams.get("ruleId") ?? undefined;
  return Response.json({ items: await listFirings(await getStore(), { ...(ruleId ? { ruleId } : {}), limit: limitParam(url) }) });
});
