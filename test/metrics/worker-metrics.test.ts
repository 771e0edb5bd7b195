import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { type RunningHermes, startHermes } from "../../src/boot/start-hermes.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { SIGNING_SECRET, TEST_AUDIT_KEY } from "../helpers/hermes-harness.ts";
import { createTestDatabase } from "../helpers/pg.ts";
import { startSlackEmulator } from "../helpers/slack.ts";
import { parsePrometheusText, sampleValue } from "./prometheus-text.ts";

/** A worker serves no Slack request but has `/metrics` beside `/healthz`, open when no token is set. */
it("a worker process serves /metrics on its health port", async () => {
  const db = await createTestDatabase();
  const emulator = await startSlackEmulator();
  const dataDir = mkdtempSync(join(tmpdir(), "hermes-metrics-"));
  let hermes: RunningHermes | undefined;
  try {
    const env = {
      SLACK_BOT_TOKEN: "xoxb-test",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: emulator.url,
      PORT: "0",
      DATABASE_URL: db.url,
      HERMES_AUDIT_KEY: TEST_AUDIT_KEY,
      HERMES_DATA_DIR: dataDir,
      HERMES_LOG_LEVEL: "silent",
    };
    hermes = await startHermes({
      config: loadConfig(env),
      logger: silentLogger(),
      rawEnv: env,
      role: "worker",
    });
    const res = await fetch(`http://127.0.0.1:${hermes.port}/metrics`);
    expect(res.status).toBe(200);
    const samples = parsePrometheusText(await res.text());
    expect(sampleValue(samples, "hermes_turns_total", { outcome: "completed" })).toBe(0);
    expect(sampleValue(samples, "hermes_queue_jobs", { state: "waiting" })).toBe(0);
    expect(sampleValue(samples, "hermes_approvals_pending")).toBe(0);
    expect(sampleValue(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
  } finally {
    await hermes?.stop();
    await emulator.stop();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
