import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { liveGroups, signalGroup as signalProcessGroup } from "./child-process.ts";
import { NO_ENV_FILE, npmStartFlags } from "./start-command.ts";

/** How long a start may take: module load plus migrations on a busy 2-core machine. Only bounds a hang. */
export const PROCESS_START_TIMEOUT_MS = 120_000;

export interface HermesProcess {
  pid: number;
  /** `http://127.0.0.1:<port>` of this start (PORT=0 unless given: each start gets its own). */
  origin: string;
  port: number;
  output(): string;
  /** Resolves with the exit code (null after a signal) once the process is gone. */
  exited: Promise<number | null>;
  /** `kill -9` of the process group: no shutdown code runs, as in a crash or an OOM kill. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful shutdown), then SIGKILL if it is still there after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `src/main.ts` as a real process, as `npm start` runs it (`node <its flags> src/main.ts`: its pid is Hermes, not a
 * launcher) in its own process group, with exactly `env` plus PATH/HOME/LANG, and waits for the
 * start-up line ("Hermes is running: … at http://localhost:<port>…") and `/healthz` to answer.
 * Kill it by pid (`kill9`, `stop`); never by name. A start that fails kills what it started.
 */
export async function startHermesProcess(
  env: Record<string, string>,
  options: { timeoutMs?: number; args?: string[] } = {},
): Promise<HermesProcess> {
  const timeoutMs = options.timeoutMs ?? PROCESS_START_TIMEOUT_MS;
  const base = Object.fromEntries(
    ["PATH", "HOME", "LANG"].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]),
  );
  const child: ChildProcess = spawn(
    process.execPath,
    [...npmStartFlags(), "src/main.ts", ...(options.args ?? [])],
    {
      cwd: process.cwd(),
      env: { PORT: "0", HERMES_LOG_LEVEL: "warn", ...NO_ENV_FILE, ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error("could not spawn Hermes");
  liveGroups.add(pid);
  let out = "";
  // Decoded as a stream: a multi-byte character split across two chunks stays one character.
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (d: string) => (out += d));
  child.stderr?.on("data", (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      liveGroups.delete(pid);
      resolve(code);
    });
  });
  const signalGroup = (signal: NodeJS.Signals) => signalProcessGroup(pid, signal);
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const kill9 = async () => {
    if (!gone()) signalGroup("SIGKILL");
    await exited;
  };

  const started = Date.now();
  let port: number | undefined;
  try {
    for (;;) {
      port ??= readyPort(out);
      if (port !== undefined) {
        const ok = await fetch(`http://127.0.0.1:${port}/healthz`)
          .then((r) => r.status === 200)
          .catch(() => false);
        if (ok) break;
      }
      if (gone()) throw new Error(`Hermes exited during start-up:\n${out}`);
      if (Date.now() - started > timeoutMs)
        throw new Error(`Hermes did not start within ${timeoutMs} ms:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await kill9();
    throw err;
  }
  return {
    pid,
    port,
    origin: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    kill9,
    async stop(graceMs = 20_000) {
      if (gone()) return;
      signalGroup("SIGTERM");
      const timer = setTimeout(() => signalGroup("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

function readyPort(output: string): number | undefined {
  const m = /Hermes is running: .*?https?:\/\/[^:/\s]+:(\d+)/.exec(output);
  return m ? Number(m[1]) : undefined;
}

/** A temp folder for one test's processes (HERMES_DATA_DIR, tool files), removed by `remove()`. */
export function tempDir(label: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `hermes-${label}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Production mode needs an audit key from the environment (HERMES_AUDIT_KEY); tests share this one. */
export const TEST_AUDIT_KEY = "reliability-tests-audit-key-0123456789";

/** Env for a production-shaped Hermes process: HTTP mode against `slackApiUrl`, the given stores. */
export function productionEnv(o: {
  slackApiUrl: string;
  signingSecret: string;
  databaseUrl: string;
  redisUrl?: string;
  redisPrefix?: string;
  dataDir: string;
  modelBaseUrl?: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: "xoxb-test",
    SLACK_SIGNING_SECRET: o.signingSecret,
    SLACK_API_URL: o.slackApiUrl,
    DATABASE_URL: o.databaseUrl,
    HERMES_DATA_DIR: o.dataDir,
    HERMES_ADMINS: "U0ADMIN",
    HERMES_AUDIT_KEY: TEST_AUDIT_KEY,
    // The emulator enforces no rate limits unless a test asks (and then sets the scale it enforces).
    HERMES_SLACK_RATE_SCALE: "1000",
    // The post-and-update path most tests are about; streaming tests set HERMES_STREAMING=auto.
    HERMES_STREAMING: "off",
    ...(o.redisUrl ? { REDIS_URL: o.redisUrl } : {}),
    ...(o.redisPrefix ? { HERMES_REDIS_PREFIX: o.redisPrefix } : {}),
    ...(o.modelBaseUrl
      ? {
          OPENAI_BASE_URL: o.modelBaseUrl,
          HERMES_MODEL: "scripted",
          OPENAI_API_KEY: "k",
          HERMES_MODEL_MAX_RETRIES: "0",
        }
      : {}),
    ...o.extra,
  };
}
