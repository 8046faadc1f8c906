import { defineConfig } from "prisma/config";

// DATABASE_URL is optional: without it dupscope uses its embedded PGlite store, which Prisma's CLI cannot
// reach. `prisma migrate status` therefore only makes sense with DATABASE_URL set (docs/store.md).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
