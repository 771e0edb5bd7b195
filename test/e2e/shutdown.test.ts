import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { waitFor } from "../helpers/hermes-harness.ts";
import { freePort } from "../helpers/npm-start.ts";

describe("graceful shutdown", () => {
  it("SIGTERM stops taking requests, closes everything and exits 0", async () => {
    const port = await freePort();
    const child = spawn(join(process.cwd(), "node_modules/.bin/tsx"), ["src/main.ts"], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        HERMES_DATA_DIR: mkdtempSync(join(tmpdir(), "hermes-stop-")),
        HERMES_LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await waitFor(() => out.includes("Hermes is running"), 30_000, `start-up (${out})`);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const t = Date.now();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(Date.now() - t).toBeLessThan(15_000);
    expect(out).toContain("shutting down");
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 60_000);
});
