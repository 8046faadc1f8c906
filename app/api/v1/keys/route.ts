import { withApi } from "@/lib/api/errors.ts";
import { parseKeyPrefixQuery } from "@/lib/api/params.ts";
import { getStore } from "@/lib/store/index.ts";
import { keysWithPrefix } from "@/lib/views/search.ts";

export const dynamic = "force-dynamic";

/** The keys a partial key may have meant, as the key page offers them when it finds no events. */
export const GET = withApi(async (request: Request) => Response.json(await keysWithPrefix((await getStore()).driver, parseKeyPrefixQuery(new URL(request.url)))));
