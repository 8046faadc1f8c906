import { withApi } from "@/lib/api/errors.ts";
import { findings, parseFindingsQuery } from "@/lib/api/findings-query.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (request: Request) => Response.json(await findings(await getStore(), parseFindingsQuery(new URL(request.url)))));
