import { withApi } from "@/lib/api/errors.ts";
import { getStore } from "@/lib/store/index.ts";
import { storeHealth, unavailable, type Health } from "@/lib/views/health.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => {
  let health: Health;
  try {
    health = await storeHealth(await getStore());
  } catch (error) {
    health = unavailable(error);
  }
  return Response.json(health, { status: health.status === "ok" ? 200 : 503 });
});
