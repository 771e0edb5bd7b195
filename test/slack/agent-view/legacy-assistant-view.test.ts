import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestHermes, type TestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer } from "../../helpers/scripted-model.ts";
import { botReplies } from "../../helpers/slack-thread.ts";

const USER = "U0USER1";

/**
 * A workspace that installed Hermes with the older assistant view (HERMES_SLACK_SURFACE=assistant_view,
 * the emulator without the agent view): the split view's threads work as before — greeting, status
 * line through `assistant.threads.setStatus`, the answer — and no `agents.sessions.*` call is made.
 */
describe("an app installed with the assistant view", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({
      model,
      env: { HERMES_SLACK_SURFACE: "assistant_view" },
      emulator: { agentApp: { agentView: false } },
    });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => model.reset());

  it("greets a new thread, shows the status line and answers; agent sessions are not used", async () => {
    const { thread } = await t.sender.assistantThreadStarted({ user: USER, viewing: "C0OPS" });
    await waitFor(() => botReplies(t, thread.channel, thread.threadTs)[0], 30_000, "the greeting");
    model.enqueue(answer("Here you go."));
    await t.sender.messageIm({
      user: USER,
      channel: thread.channel,
      threadTs: thread.threadTs,
      text: "a report",
    });
    await waitFor(
      () => botReplies(t, thread.channel, thread.threadTs).find((m) => m.text === "Here you go."),
      30_000,
      "the answer",
    );
    const statuses = t.emulator
      .callsTo("assistant.threads.setStatus")
      .filter((c) => c.args.thread_ts === thread.threadTs);
    expect(statuses[0]?.args.status).toBe("is thinking…");
    expect(t.emulator.callsTo("agents.sessions.setStatus")).toEqual([]);
    expect(t.emulator.callsTo("agents.sessions.rename")).toEqual([]);
  });

  it("a DM carrying app_context is answered as a plain DM", async () => {
    model.enqueue(answer("Hi there."));
    const d = await t.sender.agentMessage({ user: USER, text: "hello", viewing: { channel: "C0OPS" } });
    await waitFor(
      () => botReplies(t, "D0USER1", d.message!.ts).find((m) => m.text === "Hi there."),
      30_000,
      "the answer",
    );
    expect(t.emulator.callsTo("agents.sessions.setStatus")).toEqual([]);
  });
});
