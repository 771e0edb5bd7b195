import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROCESS_CEILING_MS, startProcess } from "./child-process.ts";
import { NO_ENV_FILE } from "./start-command.ts";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The variables a person's shell passes on, and no `.env` (`NO_ENV_FILE`); everything else the test
 * gives explicitly.
 */
export function baseEnv(): Record<string, string> {
  return {
    ...Object.fromEntries(
      ["PATH", "HOME", "LANG"].filter((k) => process.env[k]).map((k) => [k, process.env[k] as string]),
    ),
    ...NO_ENV_FILE,
  };
}

/**
 * `npm start` as a person runs it, in its own process group (stopping it ends the node process npm started too),
 * on a free port with only the given variables (plus PATH/HOME/LANG): no Slack token, so the sandbox
 * workspace. Unless `bare`, it gets its own data dir (removed on stop) and a quiet log level; `bare`
 * is exactly what a fresh machine has. Resolves once `/healthz` answers; `timeoutMs` only bounds a
 * hang. If it does not come up, the process group is killed before this throws. `stderrToFile` sends
 * its stderr to a file in that data dir (see startProcess: native debug output survives whole).
 */
export async function npmStart(
  env: Record<string, string> = {},
  options: { timeoutMs?: number; cwd?: string; bare?: boolean; stderrToFile?: boolean } = {},
) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "hermes-start-"));
  const ours = options.bare ? {} : { HERMES_DATA_DIR: dataDir, HERMES_LOG_LEVEL: "warn" };
  const started = Date.now();
  const proc = startProcess("npm", ["start"], {
    cwd: options.cwd,
    env: { ...baseEnv(), PORT: String(port), ...ours, ...env },
    removeOnStop: [dataDir],
    stderrFile: options.stderrToFile ? join(dataDir, "stderr.log") : undefined,
  });
  const origin = `http://127.0.0.1:${port}`;
  try {
    await proc.until(
      async () => (await fetch(`${origin}/healthz`)).ok,
      "npm start: /healthz",
      options.timeoutMs ?? PROCESS_CEILING_MS,
    );
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return {
    port,
    origin,
    /** From spawning `npm start` to `/healthz` answering. */
    startedInMs: Date.now() - started,
    output: proc.output,
    /** Stops the whole process group and removes its data dir. */
    async stop() {
      await proc.stop();
    },
  };
}
