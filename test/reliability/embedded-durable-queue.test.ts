import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { openDatabase } from "../../src/store/db.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { type HermesProcess, startHermesProcess, tempDir } from "../helpers/hermes-process.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, stalled, toolCalls } from "../helpers/scripted-model.ts";
import { startSlackEmulator } from "../helpers/slack.ts";
import { type EffectsServer, startEffectsServer } from "./effects-server.ts";

const CHANNEL = "C0OPS";
const SIGNING_SECRET = "embedded-queue-signing-secret";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The embedded storage default — PGlite under HERMES_DATA_DIR, the in-process queue, no Redis — as a
 * real process (`src/main.ts`; Slack is the test's Web API emulator so the workspace outlives the
 * process). A turn acknowledged and queued in memory is killed (`kill -9`) before it did anything;
 * the next start on the same data dir picks it up from the database and runs it exactly once.
 */
describe("embedded default: a queued turn survives kill -9", () => {
  const model = new ScriptedModelServer();
  let emulator: SlackApiEmulator;
  let effects: EffectsServer;
  let dir: ReturnType<typeof tempDir>;
  let proc: HermesProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    await model.start();
    emulator = await startSlackEmulator();
    effects = await startEffectsServer();
    dir = tempDir("embedded-queue");
    env = {
      SLACK_BOT_TOKEN: "xoxb-test",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: emulator.url,
      HERMES_DATA_DIR: dir.path,
      HERMES_ADMINS: "U0ADMIN",
      OPENAI_BASE_URL: model.baseURL,
      HERMES_MODEL: "scripted",
      OPENAI_API_KEY: "k",
      HERMES_MODEL_MAX_RETRIES: "0",
      HERMES_HTTP_TOOLS: effects.writeToolsFile(dir.path),
    };
  }, 120_000);
  afterAll(async () => {
    await proc?.kill9();
    await effects?.stop();
    await emulator?.stop();
    await model.stop();
    dir?.remove();
  });

  const start = async () => {
    proc = await startHermesProcess(env);
    return createEventsSender({
      url: `${proc.origin}/slack/events`,
      signingSecret: SIGNING_SECRET,
      slack: emulator,
    });
  };
  const replies = (ts: string) =>
    (emulator.workspace.replies(CHANNEL, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);

  it("kill -9 after the event was acked, before the turn did anything → after a restart it runs once", async () => {
    model.enqueue(
      stalled(answer("never sent")),
      toolCalls([{ name: "notify_ops", args: { note: "printer on fire" }, id: "call_once" }]),
      answer("Paged on-call once."),
    );
    const sender = await start();
    const d = await sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> page on-call",
    });
    expect(d.status).toBe(200);
    const ts = d.message!.ts;
    await waitFor(() => model.requests.length === 1, 60_000, "the turn's first model request");
    await proc!.kill9();
    expect(effects.effects).toHaveLength(0);

    await start();
    await waitFor(
      () => replies(ts).find((m) => m.text === "Paged on-call once."),
      120_000,
      "the answer after the restart",
    );
    await sleep(1000); // a second run of the turn would show itself now
    expect(effects.effects).toHaveLength(1);
    expect(model.requests).toHaveLength(3);
    expect(replies(ts).filter((m) => m.text === "Paged on-call once.")).toHaveLength(1);
    expect(replies(ts).filter((m) => m.text.includes("Sorry"))).toEqual([]);
    await proc!.stop();

    // What the data dir holds: the event finished (its kept job cleared), one run, one execution.
    const handle = await openDatabase({ dataDir: dir.path, logger: silentLogger() });
    try {
      const events = await execSql<{ status: string; payload: unknown }>(
        handle.db,
        `SELECT status, payload FROM slack_events WHERE event_id = '${d.eventId}'`,
      );
      expect(events).toEqual([{ status: "done", payload: null }]);
      expect(await execSql(handle.db, "SELECT 1 FROM slack_events WHERE status = 'received'")).toEqual([]);
      const runs = await execSql<{ status: string }>(
        handle.db,
        `SELECT status FROM runs WHERE event_id = '${d.eventId}'`,
      );
      expect(runs).toEqual([{ status: "completed" }]);
      const audit = await execSql<{ action: string }>(
        handle.db,
        "SELECT action FROM audit_log WHERE tool_call_id = 'call_once' ORDER BY id",
      );
      expect(audit.map((r) => r.action)).toEqual(["tool.requested", "tool.executed"]);
    } finally {
      await handle.close();
    }
  }, 300_000);
});
