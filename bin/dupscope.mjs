#!/usr/bin/env -S node --max-old-space-size=256
// The CLI is TypeScript run through tsx, like the tests and scripts: no separate build step to forget.
// The heap cap keeps a long ingest's memory flat: without it V8 lets garbage grow the heap well past what the
// pipeline actually holds (a few batches).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli/main.ts");
process.exitCode = await main(process.argv);
