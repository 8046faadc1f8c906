import { withApi } from "@/lib/api/errors.ts";
import { deleteRule, getRule, updateRule } from "@/lib/alerts/repo.ts";
import { parseJsonBody } from "@/lib/api/json-body.ts";
import { ruleInputSchema } from "@/lib/alerts/schema.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = withApi(async (_request: Request, context: Context) => Response.json(await getRule(await getStore(), (await context.params).id)));

export const PUT = withApi(async (request: Request, context: Context) => {
  const input = await parseJsonBody(request, ruleInputSchema);
  return Response.json(await updateRule(await getStore(), (await context.params).id, input));
});

export const DELETE = withApi(async (_request: Request, context: Context) => {
  await deleteRule(await getStore(), (await context.params).id);
  return new Response(null, { status: 204 });
});
