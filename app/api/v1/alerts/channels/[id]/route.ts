import { withApi } from "@/lib/api/errors.ts";
import { deleteChannel, getChannel, updateChannel } from "@/lib/alerts/repo.ts";
import { parseJsonBody } from "@/lib/api/json-body.ts";
import { channelInputSchema } from "@/lib/alerts/schema.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = withApi(async (_request: Request, context: Context) => Response.json(await getChannel(await getStore(), (await context.params).id)));

export const PUT = withApi(async (request: Request, context: Context) => {
  const input = await parseJsonBody(request, channelInputSchema);
  return Response.json(await updateChannel(await getStore(), (await context.params).id, input));
});

export const DELETE = withApi(async (_request: Request, context: Context) => {
  await deleteChannel(await getStore(), (await context.params).id);
  return new Response(null, { status: 204 });
});
