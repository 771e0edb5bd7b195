import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/agent/context/messages.ts";
import { type RunSnapshot, SNAPSHOT_VERSION } from "../../src/agent/run/snapshot.ts";
import { sessionKey } from "../../src/slack/session-key.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { TEST_AUDIT_KEY, tempDir } from "../helpers/hermes-process.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";
import { type EffectsServer, startEffectsServer } from "./effects-server.ts";

const CHANNEL = "C0OPS";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Production mode (Postgres, Redis, BullMQ): a worker died in the middle of a turn, and BullMQ hands
 * the turn job out again (its stalled check, after the dead worker's lock expired). What the dead
 * worker left is written here as it would have left it — the run's checkpoint with the step's calls,
 * the audit rows of the calls it had started — and the job is queued again under the same id. The
 * live worker continues the run: a call that was running is reconciled, one that finished keeps its
 * result, one never started runs now; the model is not asked again for the step.
 */
describe("run checkpoints in Redis mode: a turn job handed out again after its worker died", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let effects: EffectsServer;
  let dir: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    await model.start();
    effects = await startEffectsServer();
    dir = tempDir("checkpoint-redis");
    t = await startTestHermes({
      model,
      redis: true,
      env: { HERMES_AUDIT_KEY: TEST_AUDIT_KEY, HERMES_HTTP_TOOLS: effects.writeToolsFile(dir.path) },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await effects?.stop();
    await model.stop();
    dir?.remove();
  });

  it("continues from the checkpoint: running call interrupted, finished call's result kept, unstarted call run", async () => {
    const s = t.hermes.services;
    const parent = t.ws.post({ channel: CHANNEL, user: "U0USER1", text: "<@U0HERMES> page ops three times" });
    const key = sessionKey({ teamId: s.slack.bot.teamId, channelId: CHANNEL, ts: parent.ts });
    const eventId = "Ev_dead_worker";
    const run = {
      runId: "run_dead_worker",
      sessionKey: key,
      userId: "U0USER1",
      teamId: s.slack.bot.teamId,
      channelId: CHANNEL,
      threadTs: parent.ts,
    };
    const call = (id: string, note: string) => ({
      id,
      name: "notify_ops",
      arguments: JSON.stringify({ note }),
    });
    const checkpoint: RunSnapshot = {
      version: SNAPSHOT_VERSION,
      run,
      messages: [
        { role: "user", content: "page ops three times" },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            call("call_was_running", "one"),
            call("call_had_finished", "two"),
            call("call_not_started", "three"),
          ],
        },
      ],
      pending: [],
      step: 1,
      usage: emptyUsage(),
      modelCalls: 1,
      failures: {},
      truncations: 0,
    };
    // The dead worker: it claimed the event, checkpointed step 1, had requested two of its calls and
    // recorded the outcome of one; then it died (no outcome for the other, the third never started).
    expect(await s.storage.events.claim(eventId, { sessionKey: key, staleAfterMs: 60_000 })).toBe("new");
    expect(await s.storage.runs.checkpoint(checkpoint, { eventId })).toBe(true);
    const audited = {
      runId: run.runId,
      userId: run.userId,
      teamId: run.teamId,
      channelId: CHANNEL,
      threadTs: parent.ts,
    };
    await s.storage.audit.append({
      ...audited,
      action: "tool.requested",
      tool: "notify_ops",
      toolCallId: "call_was_running",
      args: { note: "one" },
    });
    await s.storage.audit.append({
      ...audited,
      action: "tool.requested",
      tool: "notify_ops",
      toolCallId: "call_had_finished",
      args: { note: "two" },
    });
    await s.storage.audit.append({
      ...audited,
      action: "tool.executed",
      tool: "notify_ops",
      toolCallId: "call_had_finished",
      args: { note: "two" },
      resultSummary: '{"ok":true,"id":41}',
    });

    model.enqueue(answer("Paged ops: one may not have gone out."));
    // The turn job as the receiver queued it, handed out again (BullMQ's redelivery of the same job).
    const turnJob = {
      type: "turn" as const,
      sessionKey: key,
      teamId: run.teamId,
      channelId: CHANNEL,
      threadTs: parent.ts,
      userId: run.userId,
      text: "page ops three times",
      eventId,
      messageTs: parent.ts,
      isDm: false,
    };
    const redeliver = () => s.queue.enqueue(turnJob, { jobId: `turn:${eventId}` });
    await redeliver();
    const replies = () => (t.thread(CHANNEL, parent.ts) ?? []).filter((m) => m.user === "U0HERMES");
    await waitFor(
      () => replies().find((m) => m.text.includes("may not have gone out")),
      60_000,
      "the answer",
    );
    await sleep(500);

    // Only the call that never started ran; the model was asked once, for step 2.
    expect(effects.effects).toEqual([{ note: "three" }]);
    expect(model.requests).toHaveLength(1);
    const results = model.requests[0]!.body.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.tool_call_id)).toEqual([
      "call_was_running",
      "call_had_finished",
      "call_not_started",
    ]);
    expect(results[0]!.content).toContain("Interrupted");
    expect(results[1]!.content).toContain('{"ok":true,"id":41}');
    expect(results[2]!.content).toMatch(/"ok":\s*true/);
    const actions = async (id: string) =>
      (await s.storage.audit.query({ tool: "notify_ops", limit: 50 })).rows
        .filter((r) => r.toolCallId === id)
        .map((r) => [r.action, r.error ?? null])
        .reverse();
    expect(await actions("call_was_running")).toEqual([
      ["tool.requested", null],
      ["tool.failed", "interrupted"],
    ]);
    expect(await actions("call_had_finished")).toEqual([
      ["tool.requested", null],
      ["tool.executed", null],
    ]);
    expect(await actions("call_not_started")).toEqual([
      ["tool.requested", null],
      ["tool.executed", null],
    ]);
    expect(replies().filter((m) => m.text.includes("interrupted by a restart"))).toHaveLength(1);
    expect((await s.storage.runs.get(run.runId))?.status).toBe("completed");
    expect(await s.storage.events.isFinished(eventId)).toBe(true);

    // Handed out once more (a second stall): finished, so nothing runs again.
    await redeliver();
    await sleep(1500);
    expect(effects.effects).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect((await s.storage.audit.verify()).ok).toBe(true);
  }, 120_000);
});
