import { requireIngestToken } from "@/lib/api/auth.ts";
import { withApi } from "@/lib/api/errors.ts";
import { demoStatus, startDemoIntoEmptyStore } from "@/lib/demo/job.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

/**
 * GET /api/v1/demo: the demo load's progress, how many keys still wait for diagnosis, and whether the store is
 * still empty (`npm run demo -- --server` asks before it sends a day there).
 */
export const GET = withApi(async () => Response.json(await demoStatus((await getStore()).driver)));

/**
 * POST /api/v1/demo: loads the simulated demo day into this server's store (lib/demo). Writes like ingest, so the
 * ingest token guards it when one is set; only an empty store gets demo data mixed in (409 otherwise).
 */
export const POST = withApi(async (request: Request) => {
  requireIngestToken(request);
  const { driver } = await getStore();
  await startDemoIntoEmptyStore(driver);
  return Response.json(await demoStatus(driver), { status: 202 });
});
