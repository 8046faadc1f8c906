import { withApi } from "@/lib/api/errors.ts";
import { createChannel, listChannels } from "@/lib/alerts/repo.ts";
import { parseJsonBody } from "@/lib/api/json-body.ts";
import { channelInputSchema } from "@/lib/alerts/schema.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => Response.json({ items: await listChannels(await getStore()) }));

export const POST = withApi(async (request: Request) => {
  const input = await parseJsonBody(request, channelInputSchema);
  return Response.json(await createChannel(await getStore(), input), { status: 201 });
});
