// Runs `prisma generate` so that it works with and without network access.
//
// Prisma 7's CLI wants its native schema engine at start-up and downloads it on first use. `generate` never
// runs that engine (the client is pure TypeScript plus a WASM query compiler), so when no engine is installed
// we point PRISMA_SCHEMA_ENGINE_BINARY at an existing file: the download is skipped and the result is the same
// client an online machine generates. Migrations do not need the engine either (scripts/migrate.ts).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const env = { ...process.env, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" };

function installedSchemaEngine() {
  try {
    const enginesDir = path.dirname(require.resolve("@prisma/engines/package.json"));
    const found = readdirSync(enginesDir).find((f) => f.startsWith("schema-engine"));
    return found ? path.join(enginesDir, found) : undefined;
  } catch {
    return undefined;
  }
}

if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = installedSchemaEngine() ?? process.execPath;
  env.PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING = "1";
}

const cli = require.resolve("prisma/build/index.js");
const result = spawnSync(process.execPath, [cli, "generate"], { stdio: "inherit", env });
if (result.status !== 0) {
  console.error("prisma generate failed (scripts/prisma-generate.mjs); see the output above.");
  process.exit(result.status ?? 1);
}
