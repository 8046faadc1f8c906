// `npm start`: build if the sources changed since the last build, then serve. The server opens the store and
// applies migrations itself at start-up (instrumentation.ts), so a fresh clone needs nothing else.
import { buildIsFresh } from "./build-freshness.mjs";
import { buildSync, startServer } from "./next.mjs";

if (!buildIsFresh()) {
  console.log("dupscope: building the dashboard (first start, or sources changed)…");
  buildSync();
}
const port = process.env.PORT ?? "3000";
const server = startServer(["-p", port, ...process.argv.slice(2)]);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
