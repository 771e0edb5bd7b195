import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS, runProcess } from "../helpers/child-process.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { npmStart } from "../helpers/npm-start.ts";

/** Runs a step of the setup a person follows; fails with its output if it fails. */
async function step(command: string, args: string[], cwd?: string) {
  const r = await runProcess(command, args, { cwd, env: process.env });
  if (r.code !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (${r.code}):\n${r.stdout}${r.stderr}`);
}

// How fast it starts is measured by `npm run bench:start` (bench/start-time.ts), not asserted here:
// a wall-clock budget in a test fails whenever the machine is busy.
describe("a fresh clone with nothing configured", () => {
  it("npm ci && npm start serves the sandbox page, in command mode, on the embedded default", {
    timeout: 2 * PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-clone-"));
    let app: Awaited<ReturnType<typeof npmStart>> | undefined;
    try {
      await step("git", ["clone", "--quiet", "--no-hardlinks", process.cwd(), dir]);
      await step("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], dir);
      // No variables at all beyond PATH/HOME/LANG and the port: the embedded default.
      app = await npmStart({}, { cwd: dir, bare: true });
      console.log(`fresh clone: npm start answered /healthz after ${(app.startedInMs / 1000).toFixed(1)} s`);
      const page = await (await fetch(`${app.origin}/`)).text();
      expect(page).toContain("<html");
      // One line says where it runs and that it is in command mode (printed right after it listens).
      await waitFor(() => app?.output().includes("Hermes is running"), 30_000, "the start-up line");
      expect(app.output()).toMatch(
        /Hermes is running: sandbox workspace at http:\/\/localhost:\d+\/ — command mode/,
      );
      const health = await (await fetch(`${app.origin}/healthz`)).json();
      expect(health).toMatchObject({ ok: true, db: "pglite:ok", redis: "in-process" });
    } finally {
      await app?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
