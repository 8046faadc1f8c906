import { requireIngestToken } from "@/lib/api/auth.ts";
import { ApiError, withApi } from "@/lib/api/errors.ts";
import { demoJob, startDemoJob } from "@/lib/demo/job.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

async function status() {
  const { driver } = await getStore();
  const [row] = await driver.query<{ n: unknown; any: boolean }>(
    `SELECT (SELECT count(*) FROM diagnosis_queue) AS n, EXISTS (SELECT 1 FROM events) AS any`,
  );
  return { job: demoJob(), diagnosisQueue: Number(row?.n ?? 0), storeEmpty: !row?.any };
}

/**
 * GET /api/v1/demo: the demo load's progress, how many keys still wait for diagnosis, and whether the store is
 * still empty (`npm run demo -- --server` asks before it sends a day there).
 */
export const GET = withApi(async () => Response.json(await status()));

/**
 * POST /api/v1/demo: loads the simulated demo day into this server's store (lib/demo). Writes like ingest, so the
 * ingest token guards it when one is set; only an empty store gets demo data mixed in.
 */
export const POST = withApi(async (request: Request) => {
  requireIngestToken(request);
  const { driver } = await getStore();
  if (demoJob().state !== "loading") {
    const [row] = await driver.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM events) AS any`);
    if (row?.any) throw new ApiError("conflict", "the store already holds events: demo data is only loaded into an empty store");
    startDemoJob(driver);
  }
  return Response.json(await status(), { status: 202 });
});
