#!/usr/bin/env -S node --max-old-space-size=256 --max-semi-space-size=32
// The heap cap keeps a long ingest's memory flat: without it V8 lets garbage grow the heap well past what the
// pipeline actually holds (a few batches). The larger young generation lets a batch's parsed events die there
// instead of being copied into the old one: ~12% faster ingest for ~30 MB more memory (docs/performance.md).
import { loadCli } from "./load-cli.mjs";

const { main } = await loadCli();
process.exitCode = await main(process.argv);
