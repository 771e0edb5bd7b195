import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS, startProcess } from "../helpers/child-process.ts";
import { baseEnv, freePort } from "../helpers/npm-start.ts";

describe("graceful shutdown", () => {
  it("SIGTERM stops taking requests, closes everything and exits 0", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "hermes-stop-"));
    const hermes = startProcess(process.execPath, ["src/main.ts"], {
      env: { ...baseEnv(), PORT: String(port), HERMES_DATA_DIR: dataDir, HERMES_LOG_LEVEL: "info" },
      removeOnStop: [dataDir],
    });
    try {
      await hermes.waitForOutput(/Hermes is running/, "the start-up line");
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const t = Date.now();
      // To the Hermes process itself, as a supervisor would.
      hermes.signal("SIGTERM");
      // Exit code 0 is the graceful path: main.ts exits 1 if stopping takes longer than its own 30 s.
      expect(await hermes.exited).toMatchObject({ code: 0 });
      console.log(`SIGTERM to exit: ${((Date.now() - t) / 1000).toFixed(1)} s`);
      expect(hermes.output()).toContain("shutting down");
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      await hermes.stop();
    }
  });
});
