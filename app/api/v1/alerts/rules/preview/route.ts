import { withApi } from "@/lib/api/errors.ts";
import { parseJsonBody } from "@/lib/api/json-body.ts";
import { previewRule } from "@/lib/alerts/preview.ts";
import { ruleInputSchema } from "@/lib/alerts/schema.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

/** The rule in the body measured now, unsaved: the label sets it would fire for. */
export const POST = withApi(async (request: Request) => {
  const input = await parseJsonBody(request, ruleInputSchema);
  return Response.json(await previewRule((await getStore()).driver, input));
});
