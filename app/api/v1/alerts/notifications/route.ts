import { withApi } from "@/lib/api/errors.ts";
import { listNotifications } from "@/lib/alerts/history.ts";
import { limitParam } from "@/lib/api/params.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (request: Request) => {
  const url = new URL(request.url);
  const status = url.searchParams.get("status") ?? undefined;
  const ruleId = url.searchParams.get("ruleId") ?? undefined;
  return Response.json({ items: await listNotifications(await getStore(), { ...(status ? { status } : {}), ...(ruleId ? { ruleId } : {}), limit: limitParam(url) }) });
});
