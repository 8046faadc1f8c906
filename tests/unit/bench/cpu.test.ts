import assert from "node:assert/strict";
import { test } from "node:test";
import { cpuUsed, machineCores, machineTimes, type CpuSnapshot } from "../../../bench/cpu.ts";

// /proc/stat as a 2-core KVM guest prints it (proc(5): user nice system idle iowait irq softirq steal guest guest_nice).
const STAT = `cpu  357727 12 80707 97162 5628 0 4282 350 1000 0
cpu0 178246 6 39888 51214 1902 0 1500 175 0 0
cpu1 179481 6 40819 45947 3725 0 2782 175 0 0
intr 123456 0 9 0
ctxt 987654
`;

test("machine times are read from /proc/stat's cpu line in seconds, guest time left inside user", () => {
  assert.deepEqual(machineTimes(STAT), { busy: (357727 + 12 + 80707 + 0 + 4282) / 100, idle: 971.62, iowait: 56.28, steal: 3.5 });
});

test("a kernel that prints fewer columns (no steal before Linux 2.6.11) reads as none stolen", () => {
  assert.deepEqual(machineTimes("cpu  100 0 50 800 10 0 5\ncpu0 100 0 50 800 10 0 5\n"), { busy: 1.55, idle: 8, iowait: 0.1, steal: 0 });
});

test("anything but /proc/stat's layout is refused, not read as an idle machine", () => {
  assert.throws(() => machineTimes("intr 1 2 3\n"), /does not start with the cpu line/);
});

test("cores over an interval are what each time grew by, per second", () => {
  const before = { busy: 100, idle: 50, iowait: 2, steal: 0 };
  const after = { busy: 190, idle: 56, iowait: 8, steal: 1.5 };
  assert.deepEqual(machineCores(before, after, 48), { busy: 1.875, idle: 0.125, iowait: 0.125, steal: 0.03125 });
});

test("a backend that exited between two snapshots is counted through the postmaster that waited for it, once", () => {
  // pid 1 the postmaster (its time includes the children it has waited for), 2 a backend that exits, 3 one that starts.
  const before: CpuSnapshot = new Map([
    [1, { part: "postgres", seconds: 10 }],
    [2, { part: "postgres", seconds: 5 }],
    [9, { part: "server", seconds: 40 }],
  ]);
  // The postmaster ran 1 s itself and reaped the backend, which had used 7 s in all: 2 of them since `before`.
  const after: CpuSnapshot = new Map([
    [1, { part: "postgres", seconds: 10 + 1 + 7 }],
    [3, { part: "postgres", seconds: 2 }],
    [9, { part: "server", seconds: 43 }],
  ]);
  assert.deepEqual(cpuUsed(before, after), { bench: 0, server: 3, postgres: 1 + 2 + 2 });
});
