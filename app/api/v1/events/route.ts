import { withApi } from "@/lib/api/errors.ts";
import { ingestEvents } from "@/lib/api/ingest-events.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const POST = withApi(async (request: Request) => Response.json(await ingestEvents(request, getStore)));
