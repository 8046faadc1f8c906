import { listDuplicates, parseDuplicatesQuery } from "@/lib/api/duplicates-query.ts";
import { withApi } from "@/lib/api/errors.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (request: Request) => Response.json(await listDuplicates(await getStore(), parseDuplicatesQuery(new URL(request.url)))));
