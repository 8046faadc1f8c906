import { z } from "zod";
import { withApi } from "@/lib/api/errors.ts";
import { parseJsonBody } from "@/lib/api/json-body.ts";
import { ackAlert, ackSigningKey, readAck } from "@/lib/alerts/acks.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

const signedSchema = z.object({ token: z.string().min(1).max(4096), by: z.string().trim().min(1).max(120), comment: z.string().trim().max(2000).default("") }).strict();

/**
 * Acknowledges with a notification's signed link instead of a session: the token names the one firing it may
 * acknowledge and expires (lib/alerts/acks.ts), so the route is open even when a password guards the UI.
 */
export const POST = withApi(async (request: Request) => {
  const { token, by, comment } = await parseJsonBody(request, signedSchema);
  const { driver } = await getStore();
  const claim = readAck(await ackSigningKey(driver), token);
  return Response.json(await ackAlert(driver, { ruleId: claim.ruleId, labels: claim.labels, by, comment }, Date.now(), claim.firingId), { status: 201 });
});
