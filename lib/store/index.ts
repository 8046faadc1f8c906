import { logger } from "../log.ts";
import { storeConfigFromEnv } from "./config.ts";
import { openStore, type Store } from "./open.ts";

/**
 * The server's one store. Next.js bundles instrumentation and each route separately, so a module-level
 * variable would exist once per bundle; the promise lives on globalThis so the process opens the store once.
 */
const KEY = Symbol.for("dupscope.store");
type Holder = { [KEY]?: Promise<Store> };

export function getStore(): Promise<Store> {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const config = storeConfigFromEnv();
    const log = logger.child({ component: "store" });
    holder[KEY] = openStore(config, { log: (message) => log.info(message) }).then((store) => {
      log.info({ mode: store.config.mode, location: store.location }, "store open");
      return store;
    });
    holder[KEY].catch(() => {
      delete holder[KEY];
    });
  }
  return holder[KEY];
}

export type { Store };
