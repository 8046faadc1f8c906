// Decides whether .next holds a build of the current sources, so `npm start` and `npm test` rebuild only when
// something changed (a fresh clone, a pull, an edit) and never serve a stale build.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const SOURCES = ["app", "components", "lib", "collectors", "public", "instrumentation.ts", "instrumentation-node.ts", "proxy.ts", "next.config.js", "tsconfig.json", "package-lock.json", "prisma/schema.prisma"];

function newestMtime(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(entry)) {
    if (child === "node_modules" || child.startsWith(".")) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, child)));
  }
  return newest;
}

export function buildIsFresh(root = process.cwd()) {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (!existsSync(buildId)) return false;
  const built = statSync(buildId).mtimeMs;
  return SOURCES.every((entry) => newestMtime(path.join(root, entry)) <= built);
}
