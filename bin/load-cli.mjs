// Loads the CLI's TypeScript. Through tsx, each of its ~200 modules is compiled on a loader thread at every start,
// which cost ~0.6 s of CPU per command here (docs/performance-log.md#production-volume-partitions-journal-soak) —
// paid by each `dupscope ingest` a cron or a collector script starts. So the CLI is bundled once with esbuild
// (which tsx compiles with too) into node_modules/.cache, and later starts import the bundle as long as none of its
// source files has changed since.
// There is no build step to forget: a changed file makes the next start bundle again, and anything that keeps
// the bundle from being made or read (no esbuild, a read-only folder) falls back to tsx.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.join(import.meta.dirname, "..");
const ENTRY = path.join(ROOT, "cli", "main.ts");
export const DEFAULT_CACHE = path.join(ROOT, "node_modules", ".cache", "dupscope-cli");
/** Read by esbuild for the `@/…` paths, so a change to it changes the bundle. */
const EXTRA_INPUTS = ["tsconfig.json", "package.json"];
/** Bundles other processes may still be importing are kept this long after they stop being current. */
const OLD_BUNDLE_GRACE_MS = 10 * 60_000;

/** Each input's mtime and size, as the bundle was made from them; null when one is gone. */
function stamp(files) {
  const out = {};
  for (const file of files) {
    try {
      const s = statSync(path.join(ROOT, file));
      out[file] = [s.mtimeMs, s.size];
    } catch {
      return null;
    }
  }
  return out;
}

/** The bundle's entry if it was made from the files as they are now, with this Node version. */
export function currentBundle(cache = DEFAULT_CACHE) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(cache, "manifest.json"), "utf8"));
  } catch {
    return null;
  }
  if (manifest.node !== process.version || typeof manifest.inputs !== "object") return null;
  const now = stamp(Object.keys(manifest.inputs));
  if (!now) return null;
  for (const [file, [mtime, size]] of Object.entries(manifest.inputs)) {
    if (now[file][0] !== mtime || now[file][1] !== size) return null;
  }
  return path.join(cache, manifest.dir, "main.js");
}

/** Bundles the CLI into a new folder and points the manifest at it; the rename makes concurrent starts safe. */
export async function buildBundle(cache = DEFAULT_CACHE) {
  const esbuild = await import("esbuild");
  mkdirSync(cache, { recursive: true });
  const started = Date.now();
  const dir = `bundle-${started}-${process.pid}`;
  const result = await esbuild.build({
    entryPoints: { main: ENTRY },
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: `node${process.versions.node.split(".")[0]}`,
    packages: "external",
    outdir: path.join(cache, dir),
    metafile: true,
    logLevel: "silent",
  });
  const sources = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith("node_modules/"));
  const inputs = stamp([...sources, ...EXTRA_INPUTS]);
  const entry = path.join(cache, dir, "main.js");
  // A file saved while esbuild read it may be in the bundle in either version: use the bundle this once, keep none.
  if (!inputs || Object.values(inputs).some(([mtime]) => mtime >= started - 1000)) return entry;
  const manifest = path.join(cache, "manifest.json");
  writeFileSync(`${manifest}.${process.pid}`, JSON.stringify({ node: process.version, dir, inputs }));
  renameSync(`${manifest}.${process.pid}`, manifest);
  removeOldBundles(cache, dir);
  return entry;
}

function removeOldBundles(cache, keep) {
  for (const name of readdirNames(cache)) {
    if (!name.startsWith("bundle-") || name === keep) continue;
    const made = Number(name.split("-")[1]);
    if (Date.now() - made > OLD_BUNDLE_GRACE_MS) rmSync(path.join(cache, name), { recursive: true, force: true });
  }
}

function readdirNames(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The CLI's module: the bundle when it can be used, else the sources through tsx. */
export async function loadCli() {
  if (process.env.DUPSCOPE_CLI_BUNDLE !== "off") {
    try {
      const entry = currentBundle() ?? (await buildBundle());
      return await import(pathToFileURL(entry).href);
    } catch (error) {
      if (process.env.DUPSCOPE_CLI_BUNDLE === "on") throw error;
    }
  }
  const { register } = await import("tsx/esm/api");
  register();
  return import("../cli/main.ts");
}
