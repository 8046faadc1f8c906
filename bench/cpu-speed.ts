import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { median } from "./timings.ts";

/**
 * The machine's own speed, measured beside a soak. A child process runs the same piece of work once a second (the
 * SHA-256 of an 8 MB buffer, ~5 ms) and reports the CPU time it took in its own process. The work is native code: a
 * loop in JavaScript read 4.2× from minute 21 of a 30-minute soak whose every other figure stayed level, most likely
 * V8 compiling it anew (docs/performance-log.md#lz4-for-the-journal). Waiting for a core is not CPU time; what grows it
 * is each core getting slower: a lower clock, a hyperthread or cache shared with a busier neighbour. That neighbour
 * can be the soak itself (on these two vCPUs it read ~10% higher at 0.3 idle than at 0.6,
 * docs/performance-log.md#keys-with-nothing-found-forgotten-with-their-events), so a lapse is the host's only when the
 * probe rises well beyond that. This hypervisor reports no steal. A sample prints the median of its readings against
 * the median of the first sample's.
 */

const PROBE = `
const { createHash } = require("node:crypto");
const buffer = Buffer.alloc(8 << 20, 7);
const work = () => createHash("sha256").update(buffer).digest();
work();
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();
setInterval(() => {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  process.stdout.write(String(used.user + used.system) + "\\n");
}, 1000);
`;

/** The median of the readings against the base median; null without readings or base. */
export function slowness(readings: number[], base: number | null): number | null {
  if (readings.length === 0 || base === null || base <= 0) return null;
  return median(readings) / base;
}

export class CpuSpeedProbe {
  private readonly child: ChildProcess;
  private readings: number[] = [];
  private base: number | null = null;

  constructor() {
    // Its stdin is a pipe from this process: it ends when this process does, however it ends.
    this.child = spawn(process.execPath, ["-e", PROBE], { stdio: ["pipe", "pipe", "inherit"] });
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      const us = Number(line);
      if (Number.isFinite(us) && us > 0) this.readings.push(us);
    });
  }

  /** The readings since the last call against the first call's (1: as fast; 1.3: the same work took 30% more CPU). */
  take(): number | null {
    const readings = this.readings;
    this.readings = [];
    if (this.base === null && readings.length > 0) this.base = median(readings);
    return slowness(readings, this.base);
  }

  stop(): void {
    this.child.stdin?.end();
    this.child.kill();
  }
}
