import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Resident set size of a process in MB (VmRSS from /proc; Linux only, NaN elsewhere or once gone). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** User and system CPU a process has used so far, in ms (10 ms resolution; NaN once gone). */
export function cpuTimes(pid: number): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = (ticks: string | undefined) => (Number(ticks) * 1000) / TICKS_PER_SECOND;
    return { user: ms(fields[11]), system: ms(fields[12]) };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

/** User + system CPU a process has used so far, in ms. */
export function cpuMs(pid: number): number {
  const t = cpuTimes(pid);
  return t.user + t.system;
}

/** Busy and total CPU ticks of the whole machine so far (all cores, from /proc/stat). */
export function machineTicks(): { busy: number; total: number } {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const t = line.trim().split(/\s+/).slice(1).map(Number);
    const total = t.reduce((a, b) => a + b, 0);
    const idle = (t[3] ?? 0) + (t[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/** Share of the machine's CPU (all cores) that was busy since `since` (whoever used it). */
export function machineBusySince(since: { busy: number; total: number }): number {
  const now = machineTicks();
  return (now.busy - since.busy) / (now.total - since.total);
}
