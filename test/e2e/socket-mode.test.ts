import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { startHermes } from "../../src/boot/start-hermes.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { createTestDatabase } from "../helpers/pg.ts";
import { startSlackEmulator } from "../helpers/slack.ts";

describe("Socket Mode", () => {
  let emulator: SlackApiEmulator;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    emulator = await startSlackEmulator();
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await emulator.stop();
    await db.drop();
  });

  it("SLACK_APP_TOKEN selects Socket Mode, whose connection is opened at SLACK_API_URL too", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "hermes-socket-"));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      SLACK_BOT_TOKEN: "xoxb-test",
      SLACK_APP_TOKEN: "xapp-1-test",
      SLACK_API_URL: emulator.url,
      PORT: "0",
      DATABASE_URL: db.url,
      HERMES_AUDIT_KEY: "socket-mode-test-audit-key-32-chars!",
      HERMES_DATA_DIR: dataDir,
      HERMES_LOG_LEVEL: "silent",
    };
    const config = loadConfig(env);
    expect(config.slack.mode).toBe("socket");
    // The emulator speaks no WebSocket and knows no app token: it refuses, and start-up fails clearly.
    await expect(startHermes({ config, logger: silentLogger(), rawEnv: env })).rejects.toThrow(
      /invalid_auth|not_allowed_token_type/,
    );
    const opened = emulator.callsTo("apps.connections.open");
    expect(opened.length).toBeGreaterThan(0);
    // …and the bot token was checked against the same API first.
    expect(emulator.callsTo("auth.test").length).toBeGreaterThan(0);
  }, 30_000);
});
