import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createBullmqTurnQueue } from "../../src/queue/bullmq-turn-queue.ts";
import type { TurnQueue } from "../../src/queue/turn-queue.ts";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { PROCESS_TEST_TIMEOUT_MS } from "../helpers/child-process.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { type HermesProcess, productionEnv, startHermesProcess, tempDir } from "../helpers/hermes-process.ts";
import { createTestDatabase, type TestDatabase, testPool } from "../helpers/pg.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl } from "../helpers/redis.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";
import { startSlackEmulator } from "../helpers/slack.ts";

const SIGNING_SECRET = "receiver-role-secret";
const CHANNEL = "C0OPS";

/**
 * `npm start -- --receiver` and `npm run worker` as two real processes on one Redis and Postgres:
 * the receiver takes Slack's requests (records and queues an event, answers a command) and runs no
 * turn; the worker, which takes no Slack request but serves `/healthz`, answers the queued turn.
 */
describe("receiver and worker as separate processes", () => {
  const model = new ScriptedModelServer();
  let emulator: SlackApiEmulator;
  let db: TestDatabase;
  let dir: ReturnType<typeof tempDir>;
  let direct: pg.Pool;
  let queue: TurnQueue;
  const redisPrefix = `rr${Math.random().toString(36).slice(2, 10)}`;
  const processes: HermesProcess[] = [];

  beforeAll(async () => {
    await model.start();
    emulator = await startSlackEmulator();
    db = await createTestDatabase();
    dir = tempDir("receiver-role");
    direct = testPool({ connectionString: db.url, max: 2 });
    queue = createBullmqTurnQueue({ redis: testRedisUrl, logger: silentLogger(), prefix: redisPrefix });
  });
  afterAll(async () => {
    for (const p of processes) await p.stop().catch(() => p.kill9());
    await queue?.stop({ timeoutMs: 1000 });
    await direct?.end();
    await emulator?.stop();
    await model.stop();
    await db?.drop();
    const redis = connectTestRedis();
    await deleteKeysWithPrefix(redis, `${redisPrefix}:`).finally(() => redis.disconnect());
    dir?.remove();
  });

  it(
    "an event to the receiver is recorded and queued there, and answered by the worker",
    async () => {
      const env = productionEnv({
        slackApiUrl: emulator.url,
        signingSecret: SIGNING_SECRET,
        databaseUrl: db.url,
        redisUrl: testRedisUrl,
        redisPrefix,
        dataDir: dir.path,
        modelBaseUrl: model.baseURL,
      });
      const receiver = await startHermesProcess(env, { args: ["--receiver"] });
      processes.push(receiver);
      expect(receiver.output()).toMatch(/Hermes is running: receiver only, Slack events at http/);
      const sender = createEventsSender({
        url: `${receiver.origin}/slack/events`,
        signingSecret: SIGNING_SECRET,
        slack: emulator,
      });

      // A command is the receiver's own work: answered with no worker anywhere.
      const before = emulator.workspace.ephemeralMessages(CHANNEL, "U0USER1").length;
      const command = await sender.slashCommand({ user: "U0USER1", channel: CHANNEL, text: "help" });
      expect(command.status).toBe(200);
      await waitFor(
        () => emulator.workspace.ephemeralMessages(CHANNEL, "U0USER1").length > before,
        60_000,
        "the /hermes help answer",
      );

      model.enqueue(answer("Answered by the worker."));
      const d = await sender.appMention({
        user: "U0USER1",
        channel: CHANNEL,
        text: "<@U0HERMES> who answers?",
      });
      expect(d.status).toBe(200);
      const row = await direct.query<{ status: string }>(
        "select status from slack_events where event_id = $1",
        [d.eventId],
      );
      expect(row.rows).toEqual([{ status: "received" }]);
      // Queued for a worker, and taken by nobody: the receiver runs no turn.
      await waitFor(async () => (await queue.counts()).waiting === 1, 60_000, "the turn queued");
      const thread = () =>
        (emulator.workspace.replies(CHANNEL, d.message!.ts) ?? []).filter((m) => m.user === "U0HERMES");
      // The receiver makes no Slack call for it: the worker that takes the job shows its progress.
      expect(thread().map((m) => m.text)).toEqual([]);
      expect(model.requests).toHaveLength(0);

      const worker = await startHermesProcess(env, { args: ["--worker"] });
      processes.push(worker);
      expect(worker.output()).toMatch(
        /Hermes is running: worker only \(health at http:\/\/localhost:\d+\/healthz\)/,
      );
      const health = await fetch(`${worker.origin}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true, db: "postgres:ok", redis: "ok" });
      // The worker takes no Slack request.
      expect((await fetch(`${worker.origin}/slack/events`, { method: "POST", body: "{}" })).status).toBe(404);

      await waitFor(
        () => thread().find((m) => m.text === "Answered by the worker."),
        120_000,
        "the worker's answer in the thread",
      );
      expect(model.requests).toHaveLength(1);
      // The worker's working message, if it went out, became the answer or was removed.
      await waitFor(
        () => thread().every((m) => !m.text.includes("Working on it")),
        60_000,
        "no working message left",
      );
      expect(thread().map((m) => m.text)).toEqual(["Answered by the worker."]);
      await waitFor(
        async () =>
          (
            await direct.query<{ status: string }>("select status from slack_events where event_id = $1", [
              d.eventId,
            ])
          ).rows[0]?.status === "done",
        30_000,
        "the event done",
      );
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "a split role without its shared Redis refuses to start, saying why",
    async () => {
      const env = productionEnv({
        slackApiUrl: emulator.url,
        signingSecret: SIGNING_SECRET,
        databaseUrl: db.url,
        dataDir: dir.path,
      });
      await expect(startHermesProcess(env, { args: ["--receiver"] })).rejects.toThrow(
        /`npm start -- --receiver` needs REDIS_URL: the queue it shares with the workers/,
      );
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
