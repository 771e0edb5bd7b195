import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/hermes-harness.ts";
import { npmStart } from "../helpers/npm-start.ts";

const run = promisify(execFile);

describe("a fresh clone with nothing configured", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-clone-"));
  let app: Awaited<ReturnType<typeof npmStart>> | undefined;
  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("npm ci && npm start serves the sandbox page within 30 s", async () => {
    await run("git", ["clone", "--quiet", "--no-hardlinks", process.cwd(), dir]);
    await run("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], {
      cwd: dir,
      maxBuffer: 32 * 1024 * 1024,
    });
    // No variables at all beyond PATH/HOME/LANG and the port: the embedded default.
    app = await npmStart({}, { cwd: dir, bare: true, timeoutMs: 30_000 });
    expect(app.startedInMs).toBeLessThan(30_000);
    const page = await (await fetch(`${app.origin}/`)).text();
    expect(page).toContain("<html");
    // One line says where it runs and that it is in command mode (printed right after it listens).
    await waitFor(() => app!.output().includes("Hermes is running"), 5000, "the start-up line");
    expect(app.output()).toMatch(
      /Hermes is running: sandbox workspace at http:\/\/localhost:\d+\/ — command mode/,
    );
    const health = await (await fetch(`${app.origin}/healthz`)).json();
    expect(health).toMatchObject({ ok: true, db: "pglite:ok", redis: "in-process" });
  }, 240_000);
});
