// `npm run db:migrate` applies pending migrations to the configured store (DATABASE_URL, or the embedded one);
// `--status` only reports. The server does the same at start-up, so this is for deploy pipelines and checks.
import { describeLocation, storeConfigFromEnv } from "../lib/store/config.ts";
import { openStore } from "../lib/store/open.ts";
import { migrationState } from "../lib/store/migrations.ts";

const statusOnly = process.argv.includes("--status");
try {
  const config = storeConfigFromEnv();
  console.log(`store: ${config.mode} (${describeLocation(config)})`);
  const store = await openStore(config, { migrate: !statusOnly, log: (message) => console.log(message) });
  try {
    const state = await migrationState(store.driver, store.migrations);
    console.log(`applied: ${state.applied.length}, pending: ${state.pending.length}${state.pending.length ? ` (${state.pending.join(", ")})` : ""}`);
    for (const name of state.modified) console.log(`modified after it was applied: ${name}`);
    for (const name of state.unknown) console.log(`applied but not in prisma/migrations: ${name}`);
    for (const name of state.failed) console.log(`failed and unfinished: ${name}`);
    process.exitCode = state.pending.length || state.modified.length || state.failed.length ? 1 : 0;
  } finally {
    await store.close();
  }
} catch (error) {
  console.error(`db:migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
