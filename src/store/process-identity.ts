import { readFileSync } from "node:fs";

/**
 * Who a process is, beyond its pid: a pid is reused once its process is gone (a container's Hermes
 * is often pid 1 or 7 at every start), so a lock names its owner by pid, the process's start time
 * (clock ticks since boot, `/proc/<pid>/stat` field 22) and the boot it started in. Where `/proc` is
 * missing (macOS), the pid alone is what can be checked.
 */
export interface ProcessIdentity {
  pid: number;
  /** Start time of `pid` in clock ticks since boot; absent where `/proc` is not there. */
  started?: string;
  /** `/proc/sys/kernel/random/boot_id`: a lock from before a reboot names no live process. */
  boot?: string;
}

/** This process's identity. */
export function ownIdentity(): ProcessIdentity {
  const started = processStartTime(process.pid);
  const boot = bootId();
  return { pid: process.pid, ...(started ? { started } : {}), ...(boot ? { boot } : {}) };
}

/**
 * Whether the process a lock names still runs: its pid exists (`kill(pid, 0)`; EPERM means it exists
 * under another user) and, where known, it started in the same boot at the same time, so a reused pid
 * is not taken for the owner.
 */
export function isProcessAlive(who: ProcessIdentity): boolean {
  if (!Number.isSafeInteger(who.pid) || who.pid <= 0) return false;
  try {
    process.kill(who.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const boot = bootId();
  if (who.boot && boot && who.boot !== boot) return false;
  if (who.started) {
    const started = processStartTime(who.pid);
    if (started && started !== who.started) return false;
  }
  return true;
}

/** Field 22 of `/proc/<pid>/stat`, counted after the command name (which may hold spaces and parens). */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state), so field 22 is fields[19].
  const started = fields[19];
  return started && /^\d+$/.test(started) ? started : undefined;
}

let boot: string | null | undefined;
function bootId(): string | undefined {
  if (boot === undefined) {
    try {
      boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      boot = null;
    }
  }
  return boot ?? undefined;
}
