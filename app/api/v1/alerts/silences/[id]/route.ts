import { withApi } from "@/lib/api/errors.ts";
import { expireSilence } from "@/lib/alerts/silences.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** Ends the silence now, as Alertmanager's DELETE does; it stays in the list as expired. */
export const DELETE = withApi(async (_request: Request, context: Context) =>
  Response.json(await expireSilence((await getStore()).driver, (await context.params).id)),
);
