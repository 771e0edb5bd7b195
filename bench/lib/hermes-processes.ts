import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { liveGroups, signalGroup } from "../../test/helpers/child-process.ts";
import { NO_ENV_FILE, npmStartFlags } from "../../test/helpers/start-command.ts";
import { cpuMs, cpuTimes, rssMb } from "./proc-stats.ts";

export type Role = "all" | "receiver" | "worker";

/** Only bounds a hang: a start on a busy 2-core machine (module load, migrations) can take well over 30 s. */
const START_CEILING_MS = 180_000;
const STOP_GRACE_MS = 15_000;
/** Hermes logs at `info` (its default) in benchmarks, as in production: only the tail is kept here. */
const OUTPUT_TAIL = 16_000;

/**
 * The Hermes checkout the benchmarks start: this one, or `HERMES_BENCH_APP_DIR` (another checkout
 * with its node_modules, to compare a change against the code before it in one run of the driver).
 */
export const APP_DIR = process.env.HERMES_BENCH_APP_DIR ?? fileURLToPath(new URL("../..", import.meta.url));

/**
 * Whether the build in `appDir` can run a receiver alone (`npm start -- --receiver`): its command
 * line is read in `src/boot/process-role.ts` (in `src/main.ts` in older builds).
 */
export function hasReceiverFlag(appDir: string): boolean {
  return ["src/boot/process-role.ts", "src/main.ts"].some((file) => {
    const path = join(appDir, file);
    return existsSync(path) && readFileSync(path, "utf8").includes('"--receiver"');
  });
}

/** Whether this build can run a receiver alone. */
export const RECEIVER_FLAG = hasReceiverFlag(APP_DIR);

export interface HermesProcess {
  role: Role;
  pid: number;
  /** The HTTP port (receivers and "all"; workers serve no HTTP). */
  port?: number;
  /** ms from spawn to `/healthz` answering 200 (workers: to the start-up line). */
  readyMs: number;
  rssMb(): number;
  cpuMs(): number;
  cpuTimes(): { user: number; system: number };
  output(): string;
  /** SIGTERM, then SIGKILL of the whole process group after a grace period. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts `src/main.ts` as `npm start` / `npm run worker` run it (`node <its flags> src/main.ts`, so
 * the pid is Hermes itself, not a launcher) in its own process group, with exactly `env` plus PATH/HOME/LANG,
 * and waits until it is ready: `/healthz` answers 200, or for a worker its start-up line.
 * `role: "receiver"` uses `--receiver` when this build has it, else starts an "all" process.
 */
export async function startHermesProcess(
  role: Role,
  env: Record<string, string>,
  options: { nodeArgs?: string[]; appDir?: string } = {},
): Promise<HermesProcess> {
  const appDir = options.appDir ?? APP_DIR;
  const receiverFlag = appDir === APP_DIR ? RECEIVER_FLAG : hasReceiverFlag(appDir);
  const roleArgs =
    role === "worker" ? ["--worker"] : role === "receiver" && receiverFlag ? ["--receiver"] : [];
  const base = Object.fromEntries(
    ["PATH", "HOME", "LANG"].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]),
  );
  const t0 = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [...npmStartFlags(appDir), ...(options.nodeArgs ?? []), "src/main.ts", ...roleArgs],
    {
      cwd: appDir,
      env: { PORT: "0", ...NO_ENV_FILE, ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error("could not spawn Hermes");
  liveGroups.add(pid);
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-OUTPUT_TAIL);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (!gone()) {
        signalGroup(pid, "SIGTERM");
        await Promise.race([exited, sleep(STOP_GRACE_MS)]);
      }
      signalGroup(pid, "SIGKILL");
      await exited;
      liveGroups.delete(pid);
    })();
    return stopping;
  };

  let port: number | undefined;
  try {
    for (;;) {
      const ready = /Hermes is running: (.*)/.exec(out);
      if (ready && role === "worker") break;
      port ??= ready ? portOf(ready[1]!) : undefined;
      if (port !== undefined) {
        const ok = await fetch(`http://127.0.0.1:${port}/healthz`)
          .then((r) => r.status === 200)
          .catch(() => false);
        if (ok) break;
      }
      if (gone()) throw new Error(`Hermes (${role}) exited during start-up:\n${out}`);
      if (performance.now() - t0 > START_CEILING_MS)
        throw new Error(`Hermes (${role}) did not start within ${START_CEILING_MS} ms:\n${out}`);
      await sleep(20);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    role,
    pid,
    ...(port !== undefined ? { port } : {}),
    readyMs: performance.now() - t0,
    rssMb: () => rssMb(pid),
    cpuMs: () => cpuMs(pid),
    cpuTimes: () => cpuTimes(pid),
    output: () => out,
    stop,
  };
}

function portOf(line: string): number | undefined {
  const m = /https?:\/\/[^:/\s]+:(\d+)/.exec(line);
  return m ? Number(m[1]) : undefined;
}
