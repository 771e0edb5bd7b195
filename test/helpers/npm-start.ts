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
 * `npm start` as a person runs it, in its own process group, on a free port with its own data dir and
 * only the given variables (plus PATH/HOME): no Slack token, so the sandbox workspace.
 */
export async function npmStart(env: Record<string, string> = {}, timeoutMs = 30_000) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "hermes-start-"));
  const base = Object.fromEntries(
    ["PATH", "HOME", "LANG"].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]),
  );
  const child: ChildProcess = spawn("npm", ["start"], {
    cwd: process.cwd(),
    env: { ...base, PORT: String(port), HERMES_DATA_DIR: dataDir, HERMES_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    try {
      if ((await fetch(`${origin}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs || child.exitCode !== null) {
      stop();
      throw new Error(`npm start did not come up within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  function stop() {
    try {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  return {
    port,
    origin,
    output: () => output,
    async stop() {
      stop();
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once("exit", r)));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
