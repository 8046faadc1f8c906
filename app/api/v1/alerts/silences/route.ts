import { withApi } from "@/lib/api/errors.ts";
import { parseJsonBody } from "@/lib/api/json-body.ts";
import { createSilence, listSilences, silenceInputSchema } from "@/lib/alerts/silences.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => Response.json({ items: await listSilences((await getStore()).driver) }));

export const POST = withApi(async (request: Request) => {
  const input = await parseJsonBody(request, silenceInputSchema);
  return Response.json(await createSilence((await getStore()).driver, input), { status: 201 });
});
