import { withApi } from "@/lib/api/errors.ts";
import { ingestFormat } from "@/lib/api/ingest-format.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const POST = withApi(async (request: Request, context: { params: Promise<{ format: string }> }) => {
  const { format } = await context.params;
  return Response.json(await ingestFormat(request, format, getStore));
});
