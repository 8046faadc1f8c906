#!/usr/bin/env -S node --max-old-space-size=256 --max-semi-space-size=32 --initial-old-space-size=96
// The heap cap keeps a long ingest's memory flat: without it V8 lets garbage grow the heap well past what the
// pipeline actually holds (a few batches). The larger young generation lets a batch's parsed events die there
// instead of being copied into the old one: ~12% faster ingest for ~30 MB more memory (docs/performance.md).
// The initial old generation: V8 starts a full collection whenever the old generation's room left falls below the
// young generation's size, and with a live heap of ~15 MB that was every ~100 ms of an ingest (~90 of them for 1M
// events); from 96 MB they are rare: ~1 s less CPU of ~9 for that ingest, for ~40 MB more memory.
import { loadCli } from "./load-cli.mjs";

const { main } = await loadCli();
process.exitCode = await main(process.argv);
