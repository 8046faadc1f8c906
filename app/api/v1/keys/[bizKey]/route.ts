import { ApiError, withApi } from "@/lib/api/errors.ts";
import { contextForKey, eventsForKey } from "@/lib/store/events-repo.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (_request: Request, route: { params: Promise<{ bizKey: string }> }) => {
  const { bizKey: key } = await route.params;
  const store = await getStore();
  const events = await eventsForKey(store, key);
  if (events.length === 0) throw new ApiError("not_found", `no events for bizKey "${key}" (keys are case-sensitive; was it ingested?)`);
  const { context, truncated } = await contextForKey(store, events);
  return Response.json({ bizKey: key, events, context, contextTruncated: truncated });
});
