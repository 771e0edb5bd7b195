import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { type HermesProcess, productionEnv, startHermesProcess, tempDir } from "../helpers/hermes-process.ts";
import { createTestDatabase, type TestDatabase, testPool } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, stalled, toolCalls } from "../helpers/scripted-model.ts";
import { startSlackEmulator } from "../helpers/slack.ts";
import { type EffectsServer, startEffectsServer } from "./effects-server.ts";

const CHANNEL = "C0OPS";
type Block = { type: string; elements?: Array<{ value?: string }> };

/** Two side-effecting HTTP tools on the effects server: one runs without approval, one needs it. */
function writeTools(dir: string, url: string): string {
  const tool = (name: string, approval: string) =>
    [
      `- name: ${name}`,
      "  description: Pages the on-call engineer with a note (a side effect).",
      "  method: POST",
      `  url: ${url}/effect`,
      `  approval: ${approval}`,
      "  level: user",
      "  timeoutMs: 300000",
      "  input:",
      "    type: object",
      "    properties:",
      "      note: { type: string }",
      "    required: [note]",
    ].join("\n");
  const path = join(dir, "checkpoint-tools.yaml");
  writeFileSync(path, `${tool("notify_ops", "never")}\n${tool("page_ops_approved", "always")}\n`);
  return path;
}
const SIGNING_SECRET = "checkpoint-signing-secret";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A real Hermes process (Postgres, the in-process queue with its turns kept in Postgres) killed with
 * SIGKILL in the middle of a turn, then started again on the same database and Slack workspace. The
 * turn continues from its last checkpoint: a step done before the kill is not asked of the model
 * again, and a side-effecting call without approval that was running is reconciled (audited
 * `tool.failed interrupted`, the model and the thread told once) — never executed a second time.
 */
describe("run checkpoints: a turn whose process was killed continues, never repeats a call", () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let emulator: SlackApiEmulator;
  let effects: EffectsServer;
  let dir: ReturnType<typeof tempDir>;
  let direct: pg.Pool;
  let proc: HermesProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    await model.start();
    db = await createTestDatabase();
    emulator = await startSlackEmulator();
    effects = await startEffectsServer();
    dir = tempDir("checkpoint");
    env = productionEnv({
      slackApiUrl: emulator.url,
      signingSecret: SIGNING_SECRET,
      databaseUrl: db.url,
      dataDir: dir.path,
      modelBaseUrl: model.baseURL,
      extra: { HERMES_HTTP_TOOLS: writeTools(dir.path, effects.url), HERMES_LOG_LEVEL: "warn" },
    });
    direct = testPool({ connectionString: db.url, max: 2 });
  }, 120_000);
  afterAll(async () => {
    await proc?.kill9();
    await direct?.end();
    await effects?.stop();
    await emulator?.stop();
    await model.stop();
    await db?.drop();
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
  const auditRows = async (callId: string) =>
    (
      await direct.query<{ action: string; error: string | null }>(
        "SELECT action, error FROM audit_log WHERE tool_call_id = $1 ORDER BY id",
        [callId],
      )
    ).rows;
  const toolResults = (i: number) => model.requests[i]!.body.messages.filter((m) => m.role === "tool");

  it("killed while a tool without approval runs: reconciled as interrupted, told once, not run again", async () => {
    model.reset();
    model.enqueue(
      toolCalls([{ name: "notify_ops", args: { note: "VPN down" }, id: "call_running" }]),
      answer("I paged on-call, but the page may not have gone out."),
    );
    effects.hold();
    const sender = await start();
    const d = await sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> page on-call",
    });
    const ts = d.message!.ts;
    await waitFor(() => effects.effects.length === 1, 60_000, "the tool is running");
    await proc!.kill9();
    effects.release();

    await start();
    await waitFor(
      () => replies(ts).find((m) => m.text.includes("may not have gone out")),
      120_000,
      "the answer after the restart",
    );
    await sleep(1000); // a duplicate execution or notice would show itself now
    expect(effects.effects).toHaveLength(1);
    expect(await auditRows("call_running")).toEqual([
      { action: "tool.requested", error: null },
      { action: "tool.failed", error: "interrupted" },
    ]);
    expect(replies(ts).filter((m) => m.text.includes("interrupted by a restart"))).toHaveLength(1);
    // Step 1 was not asked again: the one request after the restart already holds its call, answered
    // as interrupted.
    expect(model.requests).toHaveLength(2);
    expect(toolResults(1)).toHaveLength(1);
    expect(toolResults(1)[0]!.content).toContain("Interrupted");
    const run = await direct.query<{ status: string }>(
      "SELECT status FROM runs WHERE id = (SELECT run_id FROM audit_log WHERE tool_call_id = 'call_running' LIMIT 1)",
    );
    expect(run.rows[0]?.status).toBe("completed");
    await proc!.stop();
  }, 300_000);

  it("killed between steps: the finished step and its call are not repeated, the model goes on from its result", async () => {
    model.reset();
    model.enqueue(
      toolCalls([{ name: "notify_ops", args: { note: "DB slow" }, id: "call_done" }]),
      stalled(answer("never sent")),
      answer("Paged on-call about the database."),
    );
    const before = effects.effects.length;
    const sender = await start();
    const d = await sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> page about the DB",
    });
    const ts = d.message!.ts;
    // The second model request is sent after step 1's results were checkpointed.
    await waitFor(() => model.requests.length === 2, 60_000, "the second step's model request");
    await proc!.kill9();

    await start();
    await waitFor(
      () => replies(ts).find((m) => m.text === "Paged on-call about the database."),
      120_000,
      "the answer after the restart",
    );
    await sleep(1000);
    expect(effects.effects.length - before).toBe(1);
    expect(await auditRows("call_done")).toEqual([
      { action: "tool.requested", error: null },
      { action: "tool.executed", error: null },
    ]);
    expect(replies(ts).filter((m) => m.text.includes("interrupted"))).toEqual([]);
    // One request after the restart, continuing from step 1's real result.
    expect(model.requests).toHaveLength(3);
    expect(toolResults(2)).toHaveLength(1);
    expect(toolResults(2)[0]!.content).toMatch(/"ok":\s*true/);
    expect(replies(ts).filter((m) => m.text === "Paged on-call about the database.")).toHaveLength(1);
    await proc!.stop();
  }, 300_000);

  it("killed while an approved call runs (the resume): reconciled as interrupted, told once, the run goes on", async () => {
    model.reset();
    model.enqueue(
      toolCalls([{ name: "page_ops_approved", args: { note: "disk full" }, id: "call_approved" }]),
      answer("The approved page may not have gone out."),
    );
    const before = effects.effects.length;
    let sender = await start();
    const d = await sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> page about the disk",
    });
    const ts = d.message!.ts;
    const card = await waitFor(
      () => replies(ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions")),
      60_000,
      "the approval card",
    );
    const approvalId = (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value!;
    effects.hold();
    await sender.blockAction({
      user: "U0USER1",
      channel: CHANNEL,
      messageTs: card.ts,
      actionId: "hermes.approve",
      value: approvalId,
    });
    await waitFor(() => effects.effects.length === before + 1, 60_000, "the approved call is running");
    await proc!.kill9();
    effects.release();

    sender = await start();
    await waitFor(
      () => replies(ts).find((m) => m.text.includes("approved page may not have gone out")),
      120_000,
      "the answer after the restart",
    );
    await sleep(1000);
    expect(effects.effects.length - before).toBe(1);
    expect((await auditRows("call_approved")).map((r) => [r.action, r.error])).toEqual([
      ["tool.requested", null],
      ["tool.approval_requested", null],
      ["tool.approved", null],
      ["tool.failed", "interrupted"],
    ]);
    expect(replies(ts).filter((m) => m.text.includes("interrupted by a restart"))).toHaveLength(1);
    expect(model.requests).toHaveLength(2);
    expect(toolResults(1)[0]!.content).toContain("Interrupted");
    await proc!.stop();
  }, 300_000);
});
