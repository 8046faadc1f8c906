import { withApi } from "@/lib/api/errors.ts";
import { getStore } from "@/lib/store/index.ts";
import { storeConfigFromEnv, describeLocation } from "@/lib/store/config.ts";
import { migrationState } from "@/lib/store/migrations.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => {
  let store;
  try {
    store = await getStore();
  } catch (error) {
    const config = storeConfigFromEnv();
    return Response.json(
      {
        status: "unavailable",
        database: { mode: config.mode, location: describeLocation(config), error: error instanceof Error ? error.message : String(error) },
      },
      { status: 503 },
    );
  }
  const migrations = await migrationState(store.driver, store.migrations);
  const current = migrations.pending.length === 0 && migrations.modified.length === 0 && migrations.failed.length === 0;
  return Response.json(
    {
      status: current ? "ok" : "degraded",
      database: { mode: store.config.mode, location: store.location },
      migrations: { current, ...migrations },
    },
    { status: current ? 200 : 503 },
  );
});
