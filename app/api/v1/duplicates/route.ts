import { withApi } from "@/lib/api/errors.ts";
import { parseDuplicatesQuery } from "@/lib/api/params.ts";
import { getStore } from "@/lib/store/index.ts";
import { duplicatesPage } from "@/lib/views/duplicates.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (request: Request) => Response.json(await duplicatesPage((await getStore()).driver, parseDuplicatesQuery(new URL(request.url)))));
