// Preloaded into each server startServer starts (tests/helpers/server.ts). Its stdin is a pipe from the process that
// started it, which the kernel closes when that process ends, however it ends: a bench or test killed by a signal
// has no chance to stop its server, and an orphaned one went on diagnosing into the database of the next run.
// SIGTERM, not exit: the server shuts down as it does when stopped.
process.stdin.on("end", () => process.kill(process.pid, "SIGTERM")).resume();
