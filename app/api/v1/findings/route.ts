import { withApi } from "@/lib/api/errors.ts";
import { parseFindingsQuery } from "@/lib/api/params.ts";
import { getStore } from "@/lib/store/index.ts";
import { findings } from "@/lib/views/findings.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async (request: Request) => Response.json(await findings((await getStore()).driver, parseFindingsQuery(new URL(request.url)))));
