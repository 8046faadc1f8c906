import { withApi } from "@/lib/api/errors.ts";
import { createRule, listRules } from "@/lib/alerts/repo.ts";
import { parseJsonBody } from "@/lib/api/json-body.ts";
import { ruleInputSchema } from "@/lib/alerts/schema.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => Response.json({ items: await listRules(await getStore()) }));

export const POST = withApi(async (request: Request) => {
  const input = await parseJsonBody(request, ruleInputSchema);
  return Response.json(await createRule(await getStore(), input), { status: 201 });
});
