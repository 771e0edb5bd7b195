import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * How long a test waits for a process to come up or finish. It only bounds a hang: a start takes
 * ~10 s on an idle machine (module load ~1–3 s, a fresh PGlite ~6–8 s) and well over 30 s on a busy 2-core one.
 */
export const PROCESS_CEILING_MS = 180_000;

/**
 * vitest's timeout for a test or hook that starts processes: above the ceiling, so the helper's own
 * ceiling fires first and kills the child, never vitest abandoning a promise with a child still running.
 */
export const PROCESS_TEST_TIMEOUT_MS = 300_000;

/** After SIGTERM, how long a process may take to exit before its whole group gets SIGKILL. */
const STOP_GRACE_MS = 15_000;

// Process groups still running. If the test worker (or a benchmark) exits anyway, they go with it:
// an orphaned Hermes holds ~1 GB and loads the next run. Every helper that starts a group adds it.
export const liveGroups = new Set<number>();
process.once("exit", () => {
  for (const pid of liveGroups) signalGroup(pid, "SIGKILL");
});

/** Signals a whole process group (the leader's pid); a group that is gone already is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export type StartedProcess = ReturnType<typeof startProcess>;

/**
 * Starts `command` in its own process group (so stopping it also ends what it started: npm's shell,
 * the node process npm started, Chromium's helpers). `removeOnStop` folders are deleted once the group is dead.
 * Always call `stop()` in a `finally` (or `afterAll`), also when waiting for it failed.
 *
 * `stderrFile` sends the process's stderr to that file instead of a pipe. A pipe loses what native
 * code writes to it (Node's NODE_DEBUG_NATIVE messages) whenever it is full: the write meets a
 * non-blocking descriptor, is cut short and the rest is dropped, which a busy machine's slow reader
 * makes common. A file takes every write whole.
 */
export function startProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; removeOnStop?: string[]; stderrFile?: string },
) {
  const stderrFd = options.stderrFile === undefined ? undefined : openSync(options.stderrFile, "w");
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(command, args, {
      cwd: options.cwd ?? process.cwd(),
      env: options.env,
      stdio: ["ignore", "pipe", stderrFd ?? "pipe"],
      detached: true,
    });
  } finally {
    // The child holds its own copy of the descriptor.
    if (stderrFd !== undefined) closeSync(stderrFd);
  }
  const pid = child.pid;
  if (pid) liveGroups.add(pid);
  let stdout = "";
  let piped = "";
  const stderrFile = options.stderrFile;
  // Once stop() has removed the file's folder, what was read last stands.
  let lastRead = "";
  const stderr = () => {
    if (stderrFile === undefined) return piped;
    try {
      lastRead = readFileSync(stderrFile, "utf8");
    } catch {
      // removed with its folder
    }
    return lastRead;
  };
  let failedToSpawn: Error | undefined;
  // Decoded as a stream: a multi-byte character split across two chunks stays one character.
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (d: string) => {
    stdout += d;
  });
  child.stderr?.on("data", (d: string) => {
    piped += d;
  });
  let status: ExitStatus | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    const end = (s: ExitStatus) => {
      status = s;
      resolve(s);
    };
    child.once("exit", (code, signal) => end({ code, signal }));
    child.once("error", (err) => {
      failedToSpawn = err;
      end({ code: null, signal: null });
    });
  });
  const output = () => stdout + stderr();
  const describeEnd = () =>
    failedToSpawn
      ? `could not start ${command}: ${failedToSpawn.message}`
      : `${command} exited (code ${status?.code}, signal ${status?.signal})`;
  const tail = () => output().slice(-4000);

  return {
    pid,
    exited,
    output,
    stdout: () => stdout,
    stderr,
    /** Whether the process (group leader) has exited. */
    hasExited: () => status !== undefined,
    /** Sends `signal` to the process itself (not its group), as a supervisor stopping it would. */
    signal(signal: NodeJS.Signals) {
      child.kill(signal);
    },
    /** Resolves with the first match of `pattern` in stdout+stderr; fails if the process exits first. */
    async waitForOutput(pattern: RegExp, what: string, timeoutMs = PROCESS_CEILING_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(output());
        if (match) return match;
        if (status) throw new Error(`${what}: ${describeEnd()} first:\n${tail()}`);
        if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeoutMs} ms:\n${tail()}`);
        await sleep(50);
      }
    },
    /** Polls `check` until it returns something truthy; fails if the process exits first. */
    async until<T>(check: () => Promise<T> | T, what: string, timeoutMs = PROCESS_CEILING_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await Promise.resolve()
          .then(check)
          .catch(() => undefined);
        if (value) return value;
        if (status) throw new Error(`${what}: ${describeEnd()} first:\n${tail()}`);
        if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms:\n${tail()}`);
        await sleep(100);
      }
    },
    /**
     * SIGTERM to the group, SIGKILL to whatever is left after a grace period (or at once, if the
     * leader already exited), then removes the folders. Safe to call more than once.
     */
    async stop() {
      if (pid) {
        if (!status) {
          signalGroup(pid, "SIGTERM");
          await Promise.race([exited, sleep(STOP_GRACE_MS)]);
        }
        signalGroup(pid, "SIGKILL");
        await exited;
        liveGroups.delete(pid);
      }
      for (const dir of options.removeOnStop ?? []) rmSync(dir, { recursive: true, force: true });
      return status;
    },
  };
}

/**
 * Runs a command to completion like `execFile`, but in its own process group, bounded by a ceiling
 * that only catches a hang, and with the group killed afterwards whatever happened.
 */
export async function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number; removeOnStop?: string[] },
) {
  const timeoutMs = options.timeoutMs ?? PROCESS_CEILING_MS;
  const proc = startProcess(command, args, options);
  let timer: NodeJS.Timeout | undefined;
  try {
    const ended = await Promise.race([
      proc.exited,
      new Promise<"hung">((resolve) => {
        timer = setTimeout(() => resolve("hung"), timeoutMs);
      }),
    ]);
    if (ended === "hung") {
      throw new Error(
        `${command} ${args.join(" ")} did not finish within ${timeoutMs} ms:\n${proc.output()}`,
      );
    }
    return { code: ended.code, signal: ended.signal, stdout: proc.stdout(), stderr: proc.stderr() };
  } finally {
    clearTimeout(timer);
    await proc.stop();
  }
}
