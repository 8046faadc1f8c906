import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { after, before } from "node:test";
import type { StoreConfig } from "../../lib/store/config.ts";
import { openStore, type Store } from "../../lib/store/open.ts";

/**
 * The backends every integration test runs against: PGlite always, the machine's PostgreSQL when
 * TEST_DATABASE_URL (or DATABASE_URL) names it. Each `create()` gives a brand-new empty database, so tests
 * never see each other's rows and always exercise the migrations from scratch.
 */
export interface Backend {
  name: "pglite" | "postgres";
  create(): Promise<{ config: StoreConfig; env: Record<string, string>; dispose(): Promise<void> }>;
}

export const postgresAdminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;

const pglite: Backend = {
  name: "pglite",
  async create() {
    const dir = mkdtempSync(path.join(tmpdir(), "dupscope-test-"));
    const dataDir = path.join(dir, "data");
    return {
      config: { mode: "embedded", dataDir },
      env: { DUPSCOPE_DATA_DIR: dataDir, DATABASE_URL: "" },
      async dispose() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

function postgres(adminUrl: string): Backend {
  return {
    name: "postgres",
    async create() {
      const name = `dupscope_t_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.end();
      }
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return {
        config: { mode: "postgres", url: url.toString() },
        env: { DATABASE_URL: url.toString() },
        async dispose() {
          const cleanup = new pg.Client({ connectionString: adminUrl });
          await cleanup.connect();
          try {
            await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
          } finally {
            await cleanup.end();
          }
        },
      };
    },
  };
}

export const backends: Backend[] = [pglite, ...(postgresAdminUrl ? [postgres(postgresAdminUrl)] : [])];

/**
 * A brand-new store on `backend` for the tests of one describe block: made and migrated before them, closed and
 * removed after. Returns the getter the tests read it through.
 */
export function useFreshStore(backend: Backend): () => Store {
  return useReopenableStore(backend).store;
}

/** useFreshStore, plus `reopen`: the store closed and opened again on the same data, as a restart does. */
export function useReopenableStore(backend: Backend): { store: () => Store; reopen: () => Promise<void> } {
  let store: Store | undefined;
  let config: StoreConfig | undefined;
  let dispose: (() => Promise<void>) | undefined;
  before(async () => {
    const created = await backend.create();
    dispose = created.dispose;
    config = created.config;
    store = await openStore(config);
  });
  after(async () => {
    await store?.close();
    await dispose?.();
  });
  return {
    store: () => store!,
    async reopen() {
      await store!.close();
      store = await openStore(config!);
    },
  };
}

/**
 * For a describe block whose tests each want stores of their own: `open()` makes, migrates and opens a new one; all
 * are closed and removed after the block.
 */
export function useStoreFactory(backend: Backend): () => Promise<Store> {
  const stores: Store[] = [];
  const disposals: (() => Promise<void>)[] = [];
  after(async () => {
    for (const s of stores) await s.close().catch(() => {});
    for (const d of disposals) await d();
  });
  return async () => {
    const created = await backend.create();
    disposals.push(created.dispose);
    const store = await openStore(created.config);
    stores.push(store);
    return store;
  };
}
