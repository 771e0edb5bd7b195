import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { type RunningHermes, startHermes } from "../../src/boot/start-hermes.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { launchChromium } from "./chromium.ts";
import { TEST_AUDIT_KEY } from "./hermes-harness.ts";
import { createTestDatabase, type TestDatabase } from "./pg.ts";
import { ScriptedModelServer } from "./scripted-model.ts";

/**
 * The sandbox as `npm start` runs it (in process: emulator, page, Bolt receiver and worker) with the
 * scripted model, and Chromium to drive its page, for the enclosing `describe`: started before its
 * tests, everything stopped and removed after them. `env` adds to (or overrides) Hermes' variables.
 */
export function useSandboxInBrowser(o: { name: string; env?: Record<string, string> }) {
  const model = new ScriptedModelServer();
  let db: TestDatabase | undefined;
  let dataDir: string | undefined;
  let hermes: RunningHermes | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    mkdirSync("test-artifacts", { recursive: true });
    await model.start();
    db = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), `hermes-${o.name}-`));
    const env = {
      PORT: "0",
      DATABASE_URL: db.url,
      HERMES_AUDIT_KEY: TEST_AUDIT_KEY,
      HERMES_DATA_DIR: dataDir,
      HERMES_LOG_LEVEL: "silent",
      HERMES_ADMINS: "U0ADMIN",
      OPENAI_BASE_URL: model.baseURL,
      HERMES_MODEL: "scripted",
      OPENAI_API_KEY: "k",
      HERMES_MODEL_MAX_RETRIES: "0",
      ...o.env,
    };
    hermes = await startHermes({ config: loadConfig(env), logger: silentLogger(), rawEnv: env });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    const steps = [
      () => browser?.close(),
      () => hermes?.stop(),
      () => model.stop(),
      () => db?.drop(),
      async () => {
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      },
    ];
    const results = await Promise.allSettled(steps.map((s) => Promise.resolve().then(s)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  });

  return {
    model,
    hermes: () => hermes!,
    browser: () => browser!,
  };
}
