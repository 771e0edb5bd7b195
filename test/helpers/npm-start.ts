import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * `npm start` as a person runs it, in its own process group (stopping it ends tsx's node child too),
 * on a free port with only the given variables (plus PATH/HOME/LANG): no Slack token, so the sandbox
 * workspace. Unless `bare`, it gets its own data dir and a quiet log level; `bare` is exactly what a
 * fresh machine has. Resolves once `/healthz` answers.
 */
export async function npmStart(
  env: Record<string, string> = {},
  options: { timeoutMs?: number; cwd?: string; bare?: boolean } = {},
) {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "hermes-start-"));
  const base = Object.fromEntries(
    ["PATH", "HOME", "LANG"].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]),
  );
  const ours = options.bare ? {} : { HERMES_DATA_DIR: dataDir, HERMES_LOG_LEVEL: "warn" };
  const started = Date.now();
  const child: ChildProcess = spawn("npm", ["start"], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...base, PORT: String(port), ...ours, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  };
  const origin = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(`${origin}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs || child.exitCode !== null) {
      killGroup();
      throw new Error(`npm start did not come up within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    port,
    origin,
    /** From spawning `npm start` to `/healthz` answering. */
    startedInMs: Date.now() - started,
    output: () => output,
    async stop() {
      killGroup();
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
