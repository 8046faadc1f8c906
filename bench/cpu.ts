import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time of the processes on this machine, from /proc (Linux only): what bench:soak prints per sample to say which
 * part of the stream, the server or PostgreSQL, uses the cores. Times are in seconds of one core.
 */

/** USER_HZ: the unit of /proc/<pid>/stat's times, 100 on every Linux architecture node runs on. */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** Its own CPU time and that of the children it has waited for (cutime, cstime): see cpuUsed. */
  seconds: number;
}

function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // comm is in parentheses and may hold spaces or parentheses itself: the fields after it start past the last ")".
  const close = text.lastIndexOf(")");
  const fields = text.slice(close + 2).split(" ");
  return {
    pid,
    comm: text.slice(text.indexOf("(") + 1, close),
    ppid: Number(fields[1]),
    seconds: (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
  };
}

function allProcesses(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) out.push(stat);
  }
  return out;
}

export type CpuPart = "bench" | "server" | "postgres";

/**
 * The whole machine's CPU time so far, from /proc/stat's first line, in seconds summed over its cores. What the three
 * parts do not account for tells whether the machine itself changed during a run: `other` busy time (other processes,
 * the kernel's threads and interrupts), `steal` (time the hypervisor gave another guest while this one was ready to
 * run), `iowait` (idle with I/O outstanding).
 */
export interface MachineTimes {
  busy: number;
  idle: number;
  iowait: number;
  steal: number;
}

export function machineTimes(text = readFileSync("/proc/stat", "utf8")): MachineTimes {
  const line = text.slice(0, text.indexOf("\n"));
  if (!line.startsWith("cpu ")) throw new Error(`/proc/stat does not start with the cpu line: ${JSON.stringify(line.slice(0, 40))}`);
  // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is counted in user already.
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.slice(4).trim().split(/\s+/).map(Number);
  const seconds = (ticks: number) => ticks / TICKS_PER_SECOND;
  return { busy: seconds(user + nice + system + irq + softirq), idle: seconds(idle), iowait: seconds(iowait), steal: seconds(steal) };
}

/** Cores of each kind over an interval: what the machine's times grew by, divided by the interval's seconds. */
export function machineCores(before: MachineTimes, after: MachineTimes, seconds: number): MachineTimes {
  return {
    busy: (after.busy - before.busy) / seconds,
    idle: (after.idle - before.idle) / seconds,
    iowait: (after.iowait - before.iowait) / seconds,
    steal: (after.steal - before.steal) / seconds,
  };
}

/** CPU seconds so far of each process of a part, by pid: this process, the server's process tree, every PostgreSQL process. */
export type CpuSnapshot = Map<number, { part: CpuPart; seconds: number }>;

export function cpuSnapshot(serverPid: number): CpuSnapshot {
  const processes = allProcesses();
  const children = new Map<number, ProcStat[]>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: CpuSnapshot = new Map();
  const stack = processes.filter((p) => p.pid === serverPid);
  while (stack.length > 0) {
    const p = stack.pop()!;
    out.set(p.pid, { part: "server", seconds: p.seconds });
    stack.push(...(children.get(p.pid) ?? []));
  }
  for (const p of processes) {
    if (p.pid === process.pid) out.set(p.pid, { part: "bench", seconds: p.seconds });
    else if (p.comm === "postgres") out.set(p.pid, { part: "postgres", seconds: p.seconds });
  }
  return out;
}

/**
 * CPU seconds each part used between two snapshots. A process that started in between counts whole. One that exited
 * in between is counted through its parent, which has waited for it: a PostgreSQL backend through the postmaster, a
 * server's child through the server. The parent's time holds the child's whole life then, so what the earlier
 * snapshot had of the child is taken off. Counting only the processes alive at both snapshots missed the backends
 * that worked and then closed within the interval (the server's pool closes a connection idle for 10 s: six a minute
 * in a soak at 50,000 events/s): at 45,000, 0.06–0.46 of a core the machine spent showed as no part's, and 0.01–0.03
 * counted this way.
 */
export function cpuUsed(before: CpuSnapshot, after: CpuSnapshot): Record<CpuPart, number> {
  const used: Record<CpuPart, number> = { bench: 0, server: 0, postgres: 0 };
  for (const [pid, { part, seconds }] of after) used[part] += seconds - (before.get(pid)?.seconds ?? 0);
  for (const [pid, { part, seconds }] of before) if (!after.has(pid)) used[part] -= seconds;
  return used;
}
