import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userEvent } from "../../src/sandbox/directory-event-payloads.ts";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { PROCESS_TEST_TIMEOUT_MS } from "../helpers/child-process.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { type HermesProcess, productionEnv, startHermesProcess, tempDir } from "../helpers/hermes-process.ts";
import { createTestDatabase, type TestDatabase, testPool } from "../helpers/pg.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl } from "../helpers/redis.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { startSlackEmulator } from "../helpers/slack.ts";

const SIGNING_SECRET = "directory-broadcast-secret";
const CHANNEL = "C0OPS";

/**
 * `npm start -- --receiver` and `npm run worker` as two real processes: Slack sends `user_change` to
 * the receiver only, and the worker's next tool call resolves the person's new name, from its own
 * loaded directory, without listing the workspace again.
 */
describe("a directory event received by the receiver reaches the worker's name resolution", () => {
  const model = new ScriptedModelServer();
  let emulator: SlackApiEmulator;
  let db: TestDatabase;
  let dir: ReturnType<typeof tempDir>;
  let direct: pg.Pool;
  const redisPrefix = `db${Math.random().toString(36).slice(2, 10)}`;
  const processes: HermesProcess[] = [];

  beforeAll(async () => {
    await model.start();
    emulator = await startSlackEmulator();
    db = await createTestDatabase();
    dir = tempDir("directory-broadcast");
    direct = testPool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    for (const p of processes) await p.stop().catch(() => p.kill9());
    await direct?.end();
    await emulator?.stop();
    await model.stop();
    await db?.drop();
    const redis = connectTestRedis();
    await deleteKeysWithPrefix(redis, `${redisPrefix}:`).finally(() => redis.disconnect());
    dir?.remove();
  });

  it(
    "user_change sent to the receiver changes who @lei.wang is in the worker's tool call",
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
      const worker = await startHermesProcess(env, { args: ["--worker"] });
      processes.push(worker);
      const sender = createEventsSender({
        url: `${receiver.origin}/slack/events`,
        signingSecret: SIGNING_SECRET,
        slack: emulator,
      });
      // Pub/sub keeps nothing for a late subscriber: both processes listen before the event is sent.
      const spy = connectTestRedis();
      const plain = connectTestRedis();
      const published: string[] = [];
      spy.on("message", (_c: string, m: string) => published.push(m));
      try {
        await spy.subscribe(`${redisPrefix}:directory`);
        await waitFor(
          async () =>
            ((await plain.pubsub("NUMSUB", `${redisPrefix}:directory`)) as [string, number])[1] === 3,
          60_000,
          "receiver and worker subscribed",
        );
        // The migrations ran in the processes; a ticket Wang Lei holds, in this workspace (rows are
        // scoped by team: core/tenant.ts).
        await direct.query(
          "insert into tickets (title, assignee, created_by, team_id) values ($1, $2, $3, $4)",
          ["VPN drops every hour", DEMO.wangLei, DEMO.user, emulator.workspace.team.id],
        );

        const toolResultOf = (callId: string) =>
          model.requests
            .flatMap((r) => r.body.messages)
            .find((m) => m.role === "tool" && m.tool_call_id === callId)?.content ?? undefined;
        async function searchAsLeiWang(callId: string): Promise<string> {
          model.enqueue(
            toolCalls([{ id: callId, name: "search_tickets", args: { assignee: "@lei.wang" } }]),
            answer("Looked."),
          );
          const d = await sender.appMention({
            user: DEMO.user,
            channel: CHANNEL,
            text: "<@U0HERMES> lei's tickets?",
          });
          expect(d.status).toBe(200);
          return waitFor(() => toolResultOf(callId), 120_000, `the result of ${callId}`);
        }

        // The worker's directory loads at its first look-up: nobody is @lei.wang yet.
        const before = await searchAsLeiWang("call_before");
        expect(before).not.toContain("VPN drops every hour");
        expect(before).toMatch(/lei\.wang/);
        const listed = emulator.callsTo("users.list").length;
        expect(listed).toBeGreaterThan(0);

        const renamed = emulator.workspace.updateUser(DEMO.wangLei, { name: "lei.wang" })!;
        expect((await sender.event(userEvent("user_change", renamed))).status).toBe(200);
        // Published by the receiver; the worker, subscribed on its own connection, has it as the spy does.
        await waitFor(() => published.some((m) => m.includes("lei.wang")), 30_000, "the receiver's publish");

        const after = await searchAsLeiWang("call_after");
        expect(after).toContain("VPN drops every hour");
        expect(emulator.callsTo("users.list").length).toBe(listed);
      } finally {
        spy.disconnect();
        plain.disconnect();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
