import { withApi } from "@/lib/api/errors.ts";
import { METRICS_CONTENT_TYPE, scrapeMetrics } from "@/lib/metrics/scrape.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => new Response(await scrapeMetrics((await getStore()).driver), { headers: { "content-type": METRICS_CONTENT_TYPE } }));
