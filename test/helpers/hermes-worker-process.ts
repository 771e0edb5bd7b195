import { startProcess } from "./child-process.ts";
import { PROCESS_START_TIMEOUT_MS } from "./hermes-process.ts";
import { NO_ENV_FILE, npmStartFlags } from "./start-command.ts";

export interface HermesWorkerProcess {
  pid: number;
  output(): string;
  /** Whether the process has exited. */
  hasExited(): boolean;
  /** `kill -9` of the process group: no shutdown code runs, as in a crash or an OOM kill. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful shutdown), SIGKILL after a grace period; safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * `npm run worker` as a real process (`node <npm start's flags> src/main.ts --worker`: its pid is Hermes, in
 * its own process group) with exactly `env` plus PATH/HOME/LANG. A worker has no HTTP port, so it is
 * ready once it prints its start-up line ("Hermes is running: worker only …"), which comes after its
 * queue consumer is connected. Kill it by pid (`kill9`, `stop`), never by name; a start that fails
 * kills what it started.
 */
export async function startHermesWorkerProcess(
  env: Record<string, string>,
  options: { timeoutMs?: number } = {},
): Promise<HermesWorkerProcess> {
  const base = Object.fromEntries(
    ["PATH", "HOME", "LANG"].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]),
  );
  const proc = startProcess(process.execPath, [...npmStartFlags(), "src/main.ts", "--worker"], {
    env: { PORT: "0", HERMES_LOG_LEVEL: "warn", ...NO_ENV_FILE, ...base, ...env },
  });
  const pid = proc.pid;
  if (pid === undefined) {
    await proc.stop();
    throw new Error(`could not spawn a Hermes worker:\n${proc.output()}`);
  }
  const kill9 = async () => {
    if (!proc.hasExited()) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // the group is gone already
      }
    }
    await proc.exited;
    await proc.stop(); // forgets the group and waits for it; nothing left to signal
  };
  try {
    await proc.waitForOutput(
      /Hermes is running: worker only/,
      "Hermes worker start-up line",
      options.timeoutMs ?? PROCESS_START_TIMEOUT_MS,
    );
  } catch (err) {
    await kill9();
    throw err;
  }
  return {
    pid,
    output: proc.output,
    hasExited: proc.hasExited,
    kill9,
    stop: async () => {
      await proc.stop();
    },
  };
}
