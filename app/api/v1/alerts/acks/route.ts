import { z } from "zod";
import { withApi } from "@/lib/api/errors.ts";
import { parseJsonBody } from "@/lib/api/json-body.ts";
import { ackAlert, ackInputSchema, unackAlert } from "@/lib/alerts/acks.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const POST = withApi(async (request: Request) => {
  const input = await parseJsonBody(request, ackInputSchema);
  return Response.json(await ackAlert((await getStore()).driver, input), { status: 201 });
});

const withdrawSchema = z.object({ ruleId: z.string().min(1).max(64), labels: z.record(z.string(), z.string().max(1024)).default({}) }).strict();

/** Withdraws an acknowledgement (body: ruleId and labels): reminders resume. */
export const DELETE = withApi(async (request: Request) => {
  const { ruleId, labels } = await parseJsonBody(request, withdrawSchema);
  await unackAlert((await getStore()).driver, ruleId, labels);
  return new Response(null, { status: 204 });
});
