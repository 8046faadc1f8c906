import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import type { SqlSession } from "../../lib/store/driver.ts";
import { loadMigrations } from "../../lib/store/migrations.ts";
import { backends, useFreshStore } from "../helpers/stores.ts";

/**
 * prisma/functions.sql holds the current definition of every function and trigger the migrations leave. Run over a
 * migrated database it must change nothing: a migration that changes a function or trigger without the file, or a
 * file edited alone, shows as a definition that differs; one the file lacks shows in the list of names. PostgreSQL
 * prints each definition (pg_get_functiondef, pg_get_triggerdef); runs of whitespace are read as one space.
 */
const FILE = path.join(import.meta.dirname, "..", "..", "prisma", "functions.sql");
const file = readFileSync(FILE, "utf8");

interface Declaration {
  kind: "FUNCTION" | "TRIGGER";
  name: string;
  /** What the `-- migration:` line above it names. */
  migration: string | undefined;
}

function declarations(sql: string): Declaration[] {
  const found: Declaration[] = [];
  let migration: string | undefined;
  for (const line of sql.split("\n")) {
    const named = /^-- migration: (\S+)$/.exec(line);
    if (named) migration = named[1];
    const declared = /^CREATE OR REPLACE (FUNCTION|TRIGGER) "([^"]+)"/.exec(line);
    if (declared) found.push({ kind: declared[1] as Declaration["kind"], name: declared[2]!, migration });
  }
  return found;
}

interface Definition {
  kind: string;
  name: string;
  id: string;
  def: string;
}

/** The functions and triggers of the store's schema, those of extensions and the copies on partitions left out. */
async function definitions(session: SqlSession): Promise<Definition[]> {
  const rows = await session.query<Definition>(
    `SELECT 'FUNCTION' AS kind, p.proname AS name, p.oid::regprocedure::text AS id, pg_get_functiondef(p.oid) AS def
       FROM pg_proc p
      WHERE p.pronamespace = current_schema()::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
     UNION ALL
     SELECT 'TRIGGER', t.tgname, t.tgrelid::regclass::text || '.' || t.tgname, pg_get_triggerdef(t.oid)
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE NOT t.tgisinternal AND t.tgparentid = 0 AND c.relnamespace = current_schema()::regnamespace
      ORDER BY 1, 3`,
  );
  return rows.map((r) => ({ ...r, def: r.def.replace(/\s+/g, " ").trim() }));
}

const ROLLED_BACK = new Error("rolled back on purpose");

for (const backend of backends) {
  describe(`prisma/functions.sql (${backend.name})`, () => {
    const store = useFreshStore(backend);

    it("holds every function and trigger of the migrated schema, and run over it changes none", async () => {
      const migrated = await definitions(store().driver);
      let rerun: Definition[] = [];
      await store()
        .driver.transaction(async (tx) => {
          await tx.exec(file);
          rerun = await definitions(tx);
          throw ROLLED_BACK;
        })
        .catch((error: unknown) => {
          if (error !== ROLLED_BACK) throw error;
        });
      assert.deepEqual(rerun, migrated);
      const key = (d: { kind: string; name: string }) => `${d.kind} ${d.name}`;
      assert.deepEqual(declarations(file).map(key).sort(), [...new Set(migrated.map(key))].sort());
    });
  });
}

it("prisma/functions.sql names, above each definition, the migration that set it last", () => {
  const last = new Map<string, string>();
  for (const migration of loadMigrations()) {
    for (const [, kind, name] of migration.sql.matchAll(/CREATE (?:OR REPLACE )?(FUNCTION|TRIGGER) "([^"]+)"/g)) {
      last.set(`${kind} ${name}`, migration.name);
    }
  }
  const found = declarations(file);
  assert.ok(found.length > 0, "no CREATE OR REPLACE FUNCTION or TRIGGER found in prisma/functions.sql");
  assert.deepEqual(
    found.map((d) => [d.kind, d.name, d.migration]),
    found.map((d) => [d.kind, d.name, last.get(`${d.kind} ${d.name}`)]),
  );
});
