import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { createRunQuery, type RunDetail } from "../../src/store/run-query.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { type HermesProcess, productionEnv, startHermesProcess, tempDir } from "../helpers/hermes-process.ts";
import { createTestDatabase, execSql, type TestDatabase } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, type ScriptStep, toolCalls } from "../helpers/scripted-model.ts";
import { startSlackEmulator } from "../helpers/slack.ts";

const SIGNING_SECRET = "run-record-crash-secret";
/** Holds the second model call until the process is killed; never answered in time. */
const HOLD_MS = 10 * 60_000;

/**
 * A run's record is written as the run goes: `kill -9` of a real Hermes process in the middle of a
 * run's second step leaves the record of its first step (model call and tool call) and the request;
 * the restart continues the same run, and its record goes on from there (one record, seq in order).
 */
describe("run record of a crashed run (kill -9, real process)", () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let emulator: SlackApiEmulator;
  let dir: ReturnType<typeof tempDir>;
  let hermes: HermesProcess | undefined;
  let handle: DatabaseHandle;
  let hold = true;

  const start = async () => {
    hermes = await startHermesProcess(
      productionEnv({
        slackApiUrl: emulator.url,
        signingSecret: SIGNING_SECRET,
        databaseUrl: db.url,
        dataDir: dir.path,
        modelBaseUrl: model.baseURL,
        extra: { HERMES_MODEL_PRICES: "scripted=1/2" },
      }),
    );
    return createEventsSender({
      url: `${hermes.origin}/slack/events`,
      signingSecret: SIGNING_SECRET,
      slack: emulator,
    });
  };

  beforeAll(async () => {
    dir = tempDir("run-record-crash");
    db = await createTestDatabase();
    emulator = await startSlackEmulator();
    // First call: a tool call; later calls (with the tool's result) hang while `hold`, then answer.
    model.fallback = (req): ScriptStep => {
      if (!req.body.messages.some((m) => m.role === "tool"))
        return toolCalls([{ name: "get_current_time", args: {} }]);
      const step = answer("It is noon.");
      return hold ? ({ ...(step as object), delayMs: HOLD_MS } as ScriptStep) : step;
    };
    await model.start();
    handle = await openDatabase({
      databaseUrl: db.url,
      dataDir: "",
      logger: silentLogger(),
      maxConnections: 2,
    });
  }, 120_000);
  afterAll(async () => {
    await hermes?.kill9();
    await handle?.close();
    await emulator?.stop();
    await model.stop();
    await db?.drop();
    dir?.remove();
  }, 120_000);

  it("keeps the steps written before the crash, and the restart continues the same record", {
    timeout: 400_000,
  }, async () => {
    const sender = await start();
    const d = await sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> what time is it? mail me at li.ming@example.com",
    });
    const ts = d.message!.ts;
    const query = createRunQuery({ db: handle.db });
    const runOfThread = async (): Promise<RunDetail | undefined> => {
      const [row] = await execSql<{ id: string }>(handle.db, `SELECT id FROM runs WHERE thread_ts = '${ts}'`);
      return row ? query.get(row.id) : undefined;
    };
    // The second model call is in flight (held): step 1 is done and recorded.
    await waitFor(() => model.requests.length >= 2, 120_000, "the second model call");
    const before = await waitFor(
      async () => {
        const r = await runOfThread();
        return r && r.timeline.length >= 2 ? r : undefined;
      },
      60_000,
      "step 1 recorded",
    );
    await hermes!.kill9();
    hermes = undefined;

    const crashed = (await query.get(before.runId))!;
    expect(crashed.status).toBe("running");
    expect(crashed.finishedAt).toBeNull();
    expect(crashed.requestText).toBe("what time is it? mail me at [email]");
    expect(crashed.timeline.slice(0, 2).map((s) => [s.seq, s.kind, s.name, s.status])).toEqual([
      [1, "model", "scripted", "ok"],
      [2, "tool", "get_current_time", "ok"],
    ]);
    expect(crashed).toMatchObject({ steps: 1, modelCalls: 1, promptTokens: 100, completionTokens: 20 });

    // The restart picks the turn up again and continues the run from its checkpoint. Its record's
    // last write lands beside the run's end, both before the answer is shown (turn-worker.ts): a
    // reader that sees "completed" first may still be ahead of the last rows, so wait for the answer.
    hold = false;
    await start();
    await waitFor(
      () => emulator.workspace.replies("C0OPS", ts)?.some((m) => m.text === "It is noon."),
      180_000,
      "the continued run's answer in the thread",
    );
    const done = await waitFor(
      async () => {
        const r = await query.get(before.runId);
        return r?.status === "completed" && r.finishedAt ? r : undefined;
      },
      180_000,
      "the continued run to finish",
    );
    const count = await execSql<{ n: number }>(
      handle.db,
      `SELECT count(*)::int AS n FROM runs WHERE thread_ts = '${ts}'`,
    );
    expect(count[0]!.n).toBe(1);
    expect(done.timeline.map((s) => s.seq)).toEqual(done.timeline.map((_, i) => i + 1));
    expect(done.timeline.map((s) => [s.kind, s.name])).toEqual([
      ["model", "scripted"],
      ["tool", "get_current_time"],
      ["note", "continued"],
      ["model", "scripted"],
    ]);
    expect(done).toMatchObject({ steps: 2, modelCalls: 2, promptTokens: 200, completionTokens: 40 });
    expect(done.costUsd).toBeCloseTo((200 + 80) / 1e6, 12);
  });
});
