import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningHermes, startHermes } from "../../src/boot/start-hermes.ts";
import { loadConfig } from "../../src/config.ts";
import { type Logger, silentLogger } from "../../src/core/logger.ts";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator, SlackApiEmulatorOptions } from "../../src/sandbox/slack-api-server.ts";
import { createTestDatabase, type TestDatabase } from "./pg.ts";
import { connectTestRedis, deleteKeysWithPrefix } from "./redis.ts";
import type { ScriptedModelServer } from "./scripted-model.ts";
import { startSlackEmulator } from "./slack.ts";

export const SIGNING_SECRET = "e2e-signing-secret";
/** Production (DATABASE_URL) needs an audit key; tests checking args_sha256 can key with it too. */
export const TEST_AUDIT_KEY = "e2e-audit-key-that-is-at-least-32-chars";

/** What a restarted Hermes keeps from the one before it: database, Slack workspace, Redis keys, data dir. */
interface SharedResources {
  db: TestDatabase;
  emulator: SlackApiEmulator;
  redisPrefix: string;
  redis: boolean;
  dataDir: string;
  /** Set once the resources are released (by whichever instance stops last or first). */
  released?: Promise<void>;
}

const sharedOf = new WeakMap<object, SharedResources>();

/**
 * The whole product in HTTP mode, as in production: the real Bolt receiver on a free port, its Web API
 * client pointed (SLACK_API_URL) at the local Slack emulator, a fresh Postgres database, optionally
 * Redis (sessions, locks, BullMQ) under a unique prefix, and the scripted model (or none).
 *
 * `reuse`: start a new Hermes on another instance's database, emulator, Redis prefix and data dir (a
 * restart: call `stopHermes()` on the old one first). `redis` then follows the reused instance. Either
 * instance's `stop()` releases the shared resources, once.
 */
export async function startTestHermes(
  options: {
    model?: ScriptedModelServer;
    redis?: boolean;
    env?: Record<string, string>;
    reuse?: TestHermes;
    /** Where Hermes logs (and so its trace goes); silent by default. */
    logger?: Logger;
    /** Options of the Slack emulator (e.g. `rateLimits`); ignored with `reuse`. */
    emulator?: SlackApiEmulatorOptions;
    /** More environment once the emulator is up (e.g. its OAuth authorize URL), over `env`. */
    envOf?: (emulator: SlackApiEmulator) => Record<string, string>;
  } = {},
) {
  const reused = options.reuse ? sharedOf.get(options.reuse) : undefined;
  if (options.reuse && !reused) throw new Error("startTestHermes: `reuse` is not a test Hermes");
  const shared: SharedResources = reused ?? {
    db: await createTestDatabase(),
    emulator: await startSlackEmulator(options.emulator),
    redisPrefix: `e2e${Math.random().toString(36).slice(2, 10)}`,
    redis: options.redis ?? false,
    dataDir: mkdtempSync(join(tmpdir(), "hermes-e2e-")),
  };
  const { db, emulator, redisPrefix: prefix } = shared;
  const env: Record<string, string> = {
    SLACK_BOT_TOKEN: "xoxb-test",
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: emulator.url,
    PORT: "0",
    DATABASE_URL: db.url,
    HERMES_AUDIT_KEY: TEST_AUDIT_KEY,
    HERMES_ADMINS: "U0ADMIN",
    HERMES_DATA_DIR: shared.dataDir,
    HERMES_REDIS_PREFIX: prefix,
    HERMES_LOG_LEVEL: "silent",
    // The emulator enforces no rate limits unless a test asks (and then sets the scale it enforces).
    HERMES_SLACK_RATE_SCALE: "1000",
    // The post-and-update path most tests are about; streaming tests set HERMES_STREAMING=auto.
    HERMES_STREAMING: "off",
    ...(shared.redis ? { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" } : {}),
    ...(options.model
      ? {
          OPENAI_BASE_URL: options.model.baseURL,
          HERMES_MODEL: "scripted",
          OPENAI_API_KEY: "k",
          HERMES_MODEL_MAX_RETRIES: "0",
        }
      : {}),
    ...options.env,
    ...options.envOf?.(emulator),
  };
  const hermes: RunningHermes = await startHermes({
    config: loadConfig(env),
    logger: options.logger ?? silentLogger(),
    rawEnv: env,
  });
  const sender = createEventsSender({
    url: `http://127.0.0.1:${hermes.port}/slack/events`,
    signingSecret: SIGNING_SECRET,
    slack: emulator,
  });
  const ws = emulator.workspace;
  let hermesStopped: Promise<void> | undefined;
  const stopHermes = () => {
    hermesStopped ??= hermes.stop();
    return hermesStopped;
  };
  const instance = {
    hermes,
    emulator,
    sender,
    ws,
    db,
    /** Redis keys of this instance (BullMQ, sessions, locks) all start with this. */
    redisPrefix: prefix,
    /** Messages of a thread (parent first). */
    thread: (channel: string, ts: string) => ws.replies(channel, ts),
    /** Stops Hermes only (receiver, worker, timers, connections); database, emulator and Redis stay. */
    stopHermes,
    async stop() {
      await stopHermes();
      shared.released ??= (async () => {
        await emulator.stop();
        await db.drop();
        rmSync(shared.dataDir, { recursive: true, force: true });
        if (shared.redis) {
          const r = connectTestRedis();
          await deleteKeysWithPrefix(r, prefix);
          r.disconnect();
        }
      })();
      await shared.released;
    },
  };
  sharedOf.set(instance, shared);
  return instance;
}

export type TestHermes = Awaited<ReturnType<typeof startTestHermes>>;

/** Polls until `check` returns a truthy value (or throws after `timeoutMs`, which only bounds a hang). */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 30_000,
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
