import { withApi } from "@/lib/api/errors.ts";
import { postUnrecognised } from "@/lib/api/unrecognised.ts";
import { getStore } from "@/lib/store/index.ts";
import { unrecognisedLines } from "@/lib/views/unrecognised.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => Response.json(await unrecognisedLines((await getStore()).driver)));

export const POST = withApi(async (request: Request) => postUnrecognised(request, getStore));
