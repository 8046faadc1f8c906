#!/usr/bin/env node
// The CLI is TypeScript run through tsx, like the tests and scripts: no separate build step to forget.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli/main.ts");
process.exitCode = await main(process.argv);
