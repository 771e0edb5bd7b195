import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Only what a fresh machine has: no Slack token, no database or Redis URL, no model. */
function cleanEnv(port: number): NodeJS.ProcessEnv {
  const keep = ["PATH", "HOME", "LANG", "TMPDIR", "npm_config_cache"];
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    keep.filter((k) => process.env[k]).map((k) => [k, process.env[k]]),
  );
  return { ...env, PORT: String(port) };
}

describe("a fresh clone with nothing configured", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-clone-"));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("npm ci && npm start serves the sandbox page within 30 s", async () => {
    await run("git", ["clone", "--quiet", "--no-hardlinks", process.cwd(), dir]);
    await run("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], {
      cwd: dir,
      maxBuffer: 32 * 1024 * 1024,
    });
    const port = await freePort();
    const started = Date.now();
    child = spawn("npm", ["start"], { cwd: dir, env: cleanEnv(port), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    let page = "";
    while (Date.now() - started < 30_000) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/`);
        if (r.ok) {
          page = await r.text();
          break;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const elapsed = Date.now() - started;
    expect(page, `no page after ${elapsed} ms; output:\n${output}`).toContain("<html");
    expect(elapsed).toBeLessThan(30_000);
    // One line says where it runs and that it is in command mode.
    expect(output).toMatch(/Hermes is running: sandbox workspace at http:\/\/localhost:\d+\/ — command mode/);
    const health = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
    expect(health).toMatchObject({ ok: true, db: "pglite:ok", redis: "in-process" });
  }, 240_000);
});
