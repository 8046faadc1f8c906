import { logger } from "./lib/log.ts";
import { getStore } from "./lib/store/index.ts";

/**
 * Opens the store and applies migrations before the first request. If that fails, Next.js would keep running
 * and answer every route with 500; a dashboard without its store is useless, so exit with the reason instead.
 */
export async function openStoreAtStartup(): Promise<void> {
  try {
    await getStore();
  } catch (error) {
    logger.fatal({ err: error }, `cannot open the store: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
