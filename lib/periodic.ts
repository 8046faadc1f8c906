/**
 * A background job's loop: `run` every `intervalMs`, one run at a time (a slow run delays the next instead of
 * overlapping it), optionally once at the start. `stop` ends the loop and waits for the run in progress; `run`
 * receives a check it can call between steps to end early. Errors are `run`'s to catch and log: one that escapes
 * would only end that run.
 */

export interface PeriodicHandle {
  stop(): Promise<void>;
}

export function runEvery(intervalMs: number, run: (stopped: () => boolean) => Promise<void>, options: { immediately?: boolean } = {}): PeriodicHandle {
  let stopped = false;
  const isStopped = () => stopped;
  const tick = () => (stopped ? Promise.resolve() : run(isStopped).catch(() => {}));
  let running: Promise<void> = options.immediately ? tick() : Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(tick);
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * For a long stretch of synchronous work in a process that also answers requests or waits on replies: call the
 * returned function between pieces. Once `everyMs` has passed since the last turn it returns a promise that settles
 * after the event loop has had one (I/O callbacks included); otherwise undefined, which an `await` passes through in
 * a microtask, without a turn.
 */
export function eventLoopTurns(everyMs: number): () => Promise<void> | undefined {
  let turnAt = performance.now();
  return () => {
    if (performance.now() - turnAt < everyMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        turnAt = performance.now();
        resolve();
      }),
    );
  };
}
