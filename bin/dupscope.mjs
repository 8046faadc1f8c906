#!/usr/bin/env -S node --max-old-space-size=256 --max-semi-space-size=32
// The CLI is TypeScript run through tsx, like the tests and scripts: no separate build step to forget.
// The heap cap keeps a long ingest's memory flat: without it V8 lets garbage grow the heap well past what the
// pipeline actually holds (a few batches). The larger young generation lets a batch's parsed events die there
// instead of being copied into the old one: ~12% faster ingest for ~30 MB more memory (docs/performance.md).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli/main.ts");
process.exitCode = await main(process.argv);
