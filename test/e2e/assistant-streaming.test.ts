import { describe, expect, it } from "vitest";
import { assistantThreadsOf } from "../../src/sandbox/assistant-threads.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { planAnswer } from "../../src/slack/answer-blocks.ts";
import { feedbackBlock } from "../../src/slack/feedback-block.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { answer, toolCalls } from "../helpers/scripted-model.ts";
import { botReplies } from "../helpers/slack-thread.ts";
import { completionChunks, randomCutter } from "../helpers/sse-completion.ts";
import {
  replacedByAnswer,
  streamChunks,
  streamedText,
  streamingHermes,
} from "../helpers/streaming-hermes.ts";

/**
 * Answers in Slack's assistant split view stream too (HERMES_STREAMING=auto), end to end: the real
 * Bolt app and its `Assistant` over HTTP, the emulator's assistant threads and streaming methods,
 * Postgres, and a scripted model streaming SSE. The thread's status line names the running tool
 * beside the stream and is cleared at the end; the final message is the unstreamed answer.
 */
describe("assistant threads stream their answers, end to end through Bolt", () => {
  const { model, hermes: app } = streamingHermes();

  const ANSWER =
    "Opened ticket **#1** for the VPN on floor 3. The network team looks at it this morning and will update you here.";
  const threads = () => assistantThreadsOf(app().ws);
  const statusCalls = (threadTs: string) =>
    app()
      .emulator.callsTo("assistant.threads.setStatus")
      .filter((c) => c.args.thread_ts === threadTs)
      .map((c) => ({ status: String(c.args.status), ok: c.response?.ok }));

  async function ask(text: string) {
    const { thread } = await app().sender.assistantThreadStarted({ user: "U0USER1" });
    await waitFor(
      () =>
        threads().get(thread.channel, thread.threadTs)?.prompts &&
        botReplies(app(), thread.channel, thread.threadTs).length > 0,
      30_000,
      "greeting and suggested prompts",
    );
    const greeting = botReplies(app(), thread.channel, thread.threadTs)[0]!;
    app().emulator.clearCalls();
    const d = await app().sender.messageIm({
      user: "U0USER1",
      channel: thread.channel,
      threadTs: thread.threadTs,
      text,
    });
    expect(d.status).toBe(200);
    const replies = () =>
      botReplies(app(), thread.channel, thread.threadTs).filter(
        (m) => m.ts !== greeting.ts && m.ts !== d.message!.ts,
      );
    return { thread, replies };
  }

  const settledAnswer = (replies: () => SandboxMessage[], text: string) =>
    waitFor(
      () =>
        replies().find(
          (m) => m.text.includes(text) && (m.stream === undefined || m.stream.state === "stopped"),
        ),
      60_000,
      "the final answer",
    );

  it("a streaming model: the answer streams into the thread with its task card, the status names the tool and clears, the final message is the unstreamed answer", async () => {
    model.toChunks = (c) => completionChunks(c, randomCutter(5));
    model.enqueue(
      toolCalls([{ name: "create_ticket", args: { title: "VPN down on floor 3", priority: "high" } }]),
      answer(ANSWER),
    );
    const { thread, replies } = await ask("Open a ticket: the VPN is down on floor 3");
    const final = await settledAnswer(replies, "#1");
    await replacedByAnswer(app(), final.ts);
    await waitFor(() => statusCalls(thread.threadTs).at(-1)?.status === "", 30_000, "status cleared");
    expect(model.requests.every((r) => r.body.stream === true)).toBe(true);

    // Started in the assistant thread of the DM, for its user (as Bolt's sayStream does).
    const starts = app().emulator.callsTo("chat.startStream");
    expect(starts).toHaveLength(1);
    expect(starts[0]!.args).toMatchObject({
      channel: thread.channel,
      thread_ts: thread.threadTs,
      recipient_user_id: "U0USER1",
      recipient_team_id: app().ws.team.id,
    });
    expect(starts[0]!.response?.ts).toBe(final.ts);
    const chunks = streamChunks(app());
    const tasks = chunks.filter((c) => c.type === "task_update");
    expect(tasks.map((c) => [c.title, c.status])).toEqual([
      ["`create_ticket`", "in_progress"],
      ["`create_ticket`", "complete"],
    ]);
    const streamed = streamedText(chunks);
    expect(streamed.length).toBeGreaterThan(20);
    expect(ANSWER.startsWith(streamed)).toBe(true);
    expect(
      app()
        .emulator.callsTo("chat.stopStream")
        .filter((c) => c.response?.ok),
    ).toHaveLength(1);

    // The final message: the unstreamed answer's text and blocks, the run's feedback buttons under it.
    const settled = app().ws.getMessage(thread.channel, final.ts)!;
    const plan = planAnswer(ANSWER);
    if (plan.kind !== "messages") throw new Error("expected one message");
    expect(settled.text).toBe(plan.messages[0]!.text);
    const runId = String(
      (settled.blocks as Array<{ block_id?: string }>).at(-1)?.block_id?.replace("hermes.feedback.", ""),
    );
    expect(settled.blocks).toEqual([...plan.messages[0]!.blocks, feedbackBlock(runId)]);
    expect(settled.stream).toMatchObject({ state: "stopped", tasks: [{ status: "complete" }] });
    // One answer in the thread, no working message.
    expect(replies().map((m) => m.ts)).toEqual([final.ts]);

    // The status line named the running tool, and was cleared last.
    const statuses = statusCalls(thread.threadTs);
    expect(statuses.every((s) => s.ok)).toBe(true);
    expect(statuses.some((s) => s.status === "is running create_ticket…")).toBe(true);
    expect(statuses.at(-1)!.status).toBe("");
    expect(threads().get(thread.channel, thread.threadTs)!.status).toBe("");
  });

  it("a workspace without the streaming methods (unknown_method): the answer is posted once, the usual way, and the status clears", async () => {
    app().emulator.faults.withoutMethods("chat.startStream", "chat.appendStream", "chat.stopStream");
    model.enqueue(
      toolCalls([{ name: "create_ticket", args: { title: "Printer jam", priority: "low" } }]),
      answer(ANSWER),
    );
    const { thread, replies } = await ask("Open a ticket: the printer is jammed");
    const final = await settledAnswer(replies, "#");
    await waitFor(() => statusCalls(thread.threadTs).at(-1)?.status === "", 30_000, "status cleared");
    expect(
      app()
        .emulator.callsTo("chat.startStream")
        .map((c) => c.response?.error),
    ).toEqual(["unknown_method"]);
    expect(final.stream).toBeUndefined();
    const plan = planAnswer(ANSWER);
    if (plan.kind !== "messages") throw new Error("expected one message");
    expect(final.text).toBe(plan.messages[0]!.text);
    expect(replies().map((m) => m.ts)).toEqual([final.ts]);
    expect(app().emulator.callsTo("chat.appendStream")).toHaveLength(0);
    expect(statusCalls(thread.threadTs).some((s) => s.status === "is running create_ticket…")).toBe(true);
    expect(threads().get(thread.channel, thread.threadTs)!.status).toBe("");
  });

  it("a model server that cannot stream (one JSON body): no Slack stream, the answer is posted the usual way", async () => {
    model.streams = false;
    model.enqueue(
      toolCalls([{ name: "create_ticket", args: { title: "Badge reader broken", priority: "low" } }]),
      answer(ANSWER),
    );
    const { thread, replies } = await ask("Open a ticket: the badge reader is broken");
    const final = await settledAnswer(replies, "#");
    await waitFor(() => statusCalls(thread.threadTs).at(-1)?.status === "", 30_000, "status cleared");
    expect(model.requests.every((r) => r.body.stream === true)).toBe(true);
    expect(app().emulator.callsTo("chat.startStream")).toHaveLength(0);
    expect(final.stream).toBeUndefined();
    const plan = planAnswer(ANSWER);
    if (plan.kind !== "messages") throw new Error("expected one message");
    expect(final.text).toBe(plan.messages[0]!.text);
    expect(replies().map((m) => m.ts)).toEqual([final.ts]);
    expect(statusCalls(thread.threadTs).some((s) => s.status === "is running create_ticket…")).toBe(true);
  });
});
