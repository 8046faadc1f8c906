import { ApiError, withApi } from "@/lib/api/errors.ts";
import { eventsForKey } from "@/lib/store/events-repo.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (_request: Request, context: { params: Promise<{ bizKey: string }> }) => {
  const { bizKey } = await context.params;
  const key = bizKey;
  const events = await eventsForKey(await getStore(), key);
  if (events.length === 0) throw new ApiError("not_found", `no events for bizKey "${key}" (keys are case-sensitive; was it ingested?)`);
  return Response.json({ bizKey: key, events });
});
