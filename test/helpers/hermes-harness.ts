import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningHermes, startHermes } from "../../src/boot/start-hermes.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/logger.ts";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { createTestDatabase } from "./pg.ts";
import { connectTestRedis, deleteKeysWithPrefix } from "./redis.ts";
import type { ScriptedModelServer } from "./scripted-model.ts";
import { startSlackEmulator } from "./slack.ts";

export const SIGNING_SECRET = "e2e-signing-secret";

/**
 * The whole product in HTTP mode, as in production: the real Bolt receiver on a free port, its Web API
 * client pointed (SLACK_API_URL) at the local Slack emulator, a fresh Postgres database, optionally
 * Redis (sessions, locks, BullMQ) under a unique prefix, and the scripted model (or none).
 */
export async function startTestHermes(
  options: { model?: ScriptedModelServer; redis?: boolean; env?: Record<string, string> } = {},
) {
  const db = await createTestDatabase();
  const emulator: SlackApiEmulator = await startSlackEmulator();
  const prefix = `e2e${Math.random().toString(36).slice(2, 10)}`;
  const env: Record<string, string> = {
    SLACK_BOT_TOKEN: "xoxb-test",
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: emulator.url,
    PORT: "0",
    DATABASE_URL: db.url,
    HERMES_ADMINS: "U0ADMIN",
    HERMES_DATA_DIR: mkdtempSync(join(tmpdir(), "hermes-e2e-")),
    HERMES_REDIS_PREFIX: prefix,
    HERMES_LOG_LEVEL: "silent",
    ...(options.redis ? { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" } : {}),
    ...(options.model
      ? {
          OPENAI_BASE_URL: options.model.baseURL,
          HERMES_MODEL: "scripted",
          OPENAI_API_KEY: "k",
          HERMES_MODEL_MAX_RETRIES: "0",
        }
      : {}),
    ...options.env,
  };
  const hermes: RunningHermes = await startHermes({
    config: loadConfig(env),
    logger: silentLogger(),
    rawEnv: env,
  });
  const sender = createEventsSender({
    url: `http://127.0.0.1:${hermes.port}/slack/events`,
    signingSecret: SIGNING_SECRET,
    slack: emulator,
  });
  const ws = emulator.workspace;
  return {
    hermes,
    emulator,
    sender,
    ws,
    db,
    /** Messages of a thread (parent first). */
    thread: (channel: string, ts: string) => ws.replies(channel, ts),
    async stop() {
      await hermes.stop();
      await emulator.stop();
      await db.drop();
      if (options.redis) {
        const r = await connectTestRedis();
        await deleteKeysWithPrefix(r, prefix);
        r.disconnect();
      }
    },
  };
}

export type TestHermes = Awaited<ReturnType<typeof startTestHermes>>;

/** Polls until `check` returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
