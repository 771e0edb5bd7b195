import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { planAnswer } from "../../src/slack/answer-blocks.ts";
import { feedbackBlock } from "../../src/slack/feedback-block.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { answer, toolCalls } from "../helpers/scripted-model.ts";
import { approvalIdOf, botReplies, cardsIn, settledReplies } from "../helpers/slack-thread.ts";
import { completionChunks, randomCutter } from "../helpers/sse-completion.ts";
import {
  replacedByAnswer,
  streamChunks,
  streamedText,
  streamingHermes,
} from "../helpers/streaming-hermes.ts";

/** The answer text carried by completion chunks so far. */
function streamedContent(chunks: Array<Record<string, unknown>>): string {
  return chunks
    .map((c) => (c.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content ?? "")
    .join("");
}

/**
 * Native streaming in the running app (HERMES_STREAMING=auto): Bolt over real HTTP, the Slack
 * emulator's chat.startStream / appendStream / stopStream, Postgres, and a scripted model that
 * streams its answers as SSE. The final message must be exactly what the post-and-update path posts.
 */
describe("answers stream into Slack, end to end", () => {
  const { model, hermes: app } = streamingHermes();

  const ANSWER =
    "It is **noon** in Berlin right now. The office is open until six, and the VPN team is on call all afternoon.";

  const finalMessage = (channel: string, ts: string, text: string) =>
    waitFor(
      () =>
        botReplies(app(), channel, ts).find(
          (m) => m.text.includes(text) && (m.stream === undefined || m.stream.state === "stopped"),
        ),
      60_000,
      "the final answer",
    );

  it("a streamed answer with a tool call: task cards in order, text appended, final message as unstreamed", async () => {
    model.toChunks = (c) => completionChunks(c, randomCutter(11));
    // The answer arrives in two parts: the second only once some of the first was appended to the
    // stream, as a model writing for a while would see it (the final answer replaces the streamed
    // text, so text that arrives in one burst at the end need not be appended at all).
    const parts = completionChunks(
      (answer(ANSWER) as { completion: Record<string, unknown> }).completion,
      randomCutter(11),
    );
    const split = parts.findIndex((_, i) => streamedContent(parts.slice(0, i)).length >= 30);
    const sse = (chunks: Array<Record<string, unknown>>) =>
      chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("");
    const textAppended = () =>
      app()
        .emulator.callsTo("chat.appendStream")
        .some((c) => String(c.args.chunks).includes("markdown_text"));
    model.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), {
      sseParts: [
        sse(parts.slice(0, split)),
        () => waitFor(textAppended, 30_000, "text appended while the model still writes"),
        `${sse(parts.slice(split))}data: [DONE]\n\n`,
      ],
    });
    const d = await app().sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> what time is it?",
    });
    const ts = d.message!.ts;
    const final = (await finalMessage("C0OPS", ts, "noon")) as SandboxMessage;
    await replacedByAnswer(app(), final.ts);
    const settled = app().ws.getMessage("C0OPS", final.ts)!;

    // Started in the thread, for the requester (a channel needs the recipient).
    const [start] = app().emulator.callsTo("chat.startStream");
    expect(start!.args).toMatchObject({
      channel: "C0OPS",
      thread_ts: ts,
      recipient_user_id: "U0USER1",
      recipient_team_id: "T0001",
    });
    const streamCalls = app().emulator.calls.filter((c) =>
      /^chat\.(start|append|stop)Stream$/.test(c.method),
    );
    const chunks = streamCalls.flatMap((c) => {
      const raw = c.args.chunks;
      return (typeof raw === "string" ? JSON.parse(raw) : (raw ?? [])) as Array<Record<string, unknown>>;
    });
    const tasks = chunks.filter((c) => c.type === "task_update");
    expect(tasks.map((c) => c.status)).toEqual(["in_progress", "complete"]);
    expect(new Set(tasks.map((c) => c.id)).size).toBe(1);
    expect(tasks[0]!.title).toBe("`get_current_time`");
    const streamed = streamedText(chunks);
    expect(streamed.length).toBeGreaterThan(20);
    expect(ANSWER.startsWith(streamed)).toBe(true);
    expect(app().emulator.callsTo("chat.appendStream").length).toBeGreaterThan(0);
    expect(
      app()
        .emulator.callsTo("chat.stopStream")
        .filter((c) => c.response?.ok),
    ).toHaveLength(1);

    // Stopped with the feedback buttons of the run at its bottom.
    const stops = app().emulator.callsTo("chat.stopStream");
    const stopBlocks = JSON.parse(String(stops[0]!.args.blocks)) as Array<{ block_id?: string }>;
    const runId = String(stopBlocks[0]?.block_id ?? "").replace("hermes.feedback.", "");
    expect(stopBlocks).toEqual([feedbackBlock(runId)]);
    // The final message is the unstreamed answer: same mrkdwn text and blocks (the feedback buttons
    // under them where the workspace takes them).
    const plan = planAnswer(ANSWER);
    if (plan.kind !== "messages") throw new Error("expected one message");
    expect(settled.text).toBe(plan.messages[0]!.text);
    const feedbackTaken = stops.length === 1;
    expect(settled.blocks).toEqual([
      ...plan.messages[0]!.blocks,
      ...(feedbackTaken ? [feedbackBlock(runId)] : []),
    ]);
    expect(settled.stream).toMatchObject({ state: "stopped", tasks: [{ status: "complete" }] });
    // One answer in the thread: the working message was removed.
    const replies = botReplies(app(), "C0OPS", ts);
    expect(replies.map((m) => m.ts)).toEqual([final.ts]);
  });

  it("a workspace without the streaming methods (unknown_method): the answer is posted once, the usual way", async () => {
    const appendsBefore = app().emulator.callsTo("chat.appendStream").length;
    app().emulator.faults.withoutMethods("chat.startStream", "chat.appendStream", "chat.stopStream");
    model.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), answer(ANSWER));
    const d = await app().sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> time?" });
    const ts = d.message!.ts;
    const final = await finalMessage("C0OPS", ts, "noon");
    expect(final.stream).toBeUndefined();
    const replies = await settledReplies(app(), "C0OPS", ts);
    expect(replies.filter((m) => m.text.includes("noon"))).toHaveLength(1);
    expect(replies).toHaveLength(1);
    const plan = planAnswer(ANSWER);
    if (plan.kind !== "messages") throw new Error("expected one message");
    expect(final.text).toBe(plan.messages[0]!.text);
    expect(app().emulator.callsTo("chat.appendStream")).toHaveLength(appendsBefore);
  });

  it("a call waiting for approval: its task card is pending, the stream ends with the waiting line, the card is a message of its own", async () => {
    model.enqueue(
      toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "streamed hello" } }]),
    );
    const d = await app().sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> tell Wang Lei hello",
    });
    const ts = d.message!.ts;
    const [card] = await waitFor(() => {
      const cards = cardsIn(app(), "C0OPS", ts);
      return cards.length > 0 ? cards : undefined;
    }, 30_000);
    const streamed = await waitFor(
      () =>
        botReplies(app(), "C0OPS", ts).find(
          (m) =>
            m.stream?.state === "stopped" && m.text.includes("I asked for approval to run `send_message`"),
        ),
      30_000,
      "the stream, stopped with the waiting line",
    );
    expect(streamed.stream!.tasks).toEqual([
      expect.objectContaining({ title: "`send_message`", status: "pending" }),
    ]);
    expect(card!.ts).not.toBe(streamed.ts);
    expect(card!.stream).toBeUndefined();
    // The working message is gone: the streamed message and the card are the bot's only replies.
    expect(
      botReplies(app(), "C0OPS", ts)
        .map((m) => m.ts)
        .sort(),
    ).toEqual([streamed.ts, card!.ts].sort());
  });

  it("a run resumed after approval streams like a first turn: task cards, then the final message as unstreamed", async () => {
    model.enqueue(toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "resumed hello" } }]));
    const d = await app().sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> tell Wang Lei hello, then the time",
    });
    const ts = d.message!.ts;
    const [card] = await waitFor(() => {
      const cards = cardsIn(app(), "C0OPS", ts);
      return cards.length > 0 ? cards : undefined;
    }, 30_000);
    app().emulator.clearCalls();
    model.toChunks = (c) => completionChunks(c, randomCutter(7));
    model.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), answer(ANSWER));
    await app().sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalIdOf(card!),
      channel: "C0OPS",
      messageTs: card!.ts,
    });
    const final = (await finalMessage("C0OPS", ts, "noon")) as SandboxMessage;
    await replacedByAnswer(app(), final.ts);
    expect(
      app()
        .ws.history("D0WANGLEI")
        .some((m) => m.text.includes("resumed hello")),
    ).toBe(true);

    // The resume streamed, in the thread, for the requester.
    const [start] = app().emulator.callsTo("chat.startStream");
    expect(start!.args).toMatchObject({ channel: "C0OPS", thread_ts: ts, recipient_user_id: "U0USER1" });
    const chunks = app()
      .emulator.calls.filter((c) => /^chat\.(start|append|stop)Stream$/.test(c.method))
      .flatMap((c) => {
        const raw = c.args.chunks;
        return (typeof raw === "string" ? JSON.parse(raw) : (raw ?? [])) as Array<Record<string, unknown>>;
      });
    const tasks = chunks.filter((c) => c.type === "task_update");
    expect(tasks.length).toBeGreaterThan(0);
    expect(tasks.some((c) => c.title === "`get_current_time`" && c.status === "complete")).toBe(true);
    expect(
      app()
        .emulator.callsTo("chat.stopStream")
        .filter((c) => c.response?.ok),
    ).toHaveLength(1);

    // The final message is exactly the unstreamed answer, rated by the run.
    const settled = app().ws.getMessage("C0OPS", final.ts)!;
    const plan = planAnswer(ANSWER);
    if (plan.kind !== "messages") throw new Error("expected one message");
    expect(settled.text).toBe(plan.messages[0]!.text);
    const stopBlocks = JSON.parse(
      String(app().emulator.callsTo("chat.stopStream")[0]!.args.blocks),
    ) as Array<{
      block_id?: string;
    }>;
    const runId = String(stopBlocks[0]?.block_id ?? "").replace("hermes.feedback.", "");
    expect(settled.blocks).toEqual([...plan.messages[0]!.blocks, feedbackBlock(runId)]);
    expect(settled.stream).toMatchObject({ state: "stopped" });
    // The "Continuing…" message was replaced by the stream: no other new reply in the thread.
    const replies = botReplies(app(), "C0OPS", ts);
    expect(replies.some((m) => m.text.includes("Continuing"))).toBe(false);
    expect(replies.filter((m) => m.text.includes("noon"))).toHaveLength(1);
  });

  it("a call that fails and a call the policy denies: their task cards end as errors, the answer as unstreamed", async () => {
    app().emulator.clearCalls();
    model.toChunks = (c) => completionChunks(c, randomCutter(3));
    model.enqueue(
      toolCalls([
        { name: "get_current_time", args: { timezone: "Mars/Olympus_Mons" }, id: "call_time" },
        { name: "delete_ticket", args: { id: 1 }, id: "call_delete" },
      ]),
      answer(ANSWER),
    );
    const d = await app().sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> the time on Mars, and delete ticket 1",
    });
    const ts = d.message!.ts;
    const final = (await finalMessage("C0OPS", ts, "noon")) as SandboxMessage;
    await replacedByAnswer(app(), final.ts);
    const tasks = streamChunks(app()).filter((c) => c.type === "task_update");
    // The failed call: its card ends as an error that says it failed (never its error text). Its
    // "in progress" state may have been replaced in the buffer before an append carried it.
    const timeCards = tasks.filter((c) => c.id === "call_time");
    expect(timeCards.at(-1)).toEqual({
      type: "task_update",
      id: "call_time",
      title: "`get_current_time`",
      status: "error",
      details: "failed",
    });
    expect(timeCards.every((c) => c.status === "in_progress" || c.status === "error")).toBe(true);
    // The denied call never ran: one error card, not allowed (a member may not delete tickets).
    expect(tasks.filter((c) => c.id === "call_delete")).toEqual([
      {
        type: "task_update",
        id: "call_delete",
        title: "`delete_ticket`",
        status: "error",
        details: "not allowed",
      },
    ]);
    expect(JSON.stringify(tasks)).not.toContain("Mars");
    const settled = app().ws.getMessage("C0OPS", final.ts)!;
    expect(settled.stream!.tasks).toHaveLength(2);
    expect(settled.stream!.tasks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: "call_time", status: "error", details: "failed" }),
        expect.objectContaining({ id: "call_delete", status: "error", details: "not allowed" }),
      ]),
    );
    const plan = planAnswer(ANSWER);
    if (plan.kind !== "messages") throw new Error("expected one message");
    expect(settled.text).toBe(plan.messages[0]!.text);
    // The audit log agrees: the delete was denied, the time call failed.
    const audit = (await app().hermes.services.storage.audit.query({ limit: 50 })).rows;
    expect(audit.some((r) => r.toolCallId === "call_delete" && r.action === "tool.denied")).toBe(true);
  });

  it("a model server that cannot stream (one JSON body): no Slack stream, the working message shows progress, then the answer is posted", async () => {
    app().emulator.clearCalls();
    model.streams = false;
    model.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), answer(ANSWER));
    const d = await app().sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> time now?",
    });
    const ts = d.message!.ts;
    const final = await finalMessage("C0OPS", ts, "noon");
    expect(model.requests.every((r) => r.body.stream === true)).toBe(true);
    expect(app().emulator.callsTo("chat.startStream")).toHaveLength(0);
    expect(final.stream).toBeUndefined();
    // The post-and-update path: the working message showed the progress; the answer is a new message
    // below it (never an edit), and the working message is removed.
    const working = app()
      .emulator.callsTo("chat.postMessage")
      .find((c) => c.args.thread_ts === ts && String(c.args.text).includes("Working on it"));
    expect(working?.response?.ts).toBeDefined();
    expect(Number(final.ts)).toBeGreaterThan(Number(working!.response!.ts));
    expect(final.edited).toBeUndefined();
    const plan = planAnswer(ANSWER);
    if (plan.kind !== "messages") throw new Error("expected one message");
    expect(final.text).toBe(plan.messages[0]!.text);
    await waitFor(() => botReplies(app(), "C0OPS", ts).length === 1, 30_000, "working message removed");
    expect(botReplies(app(), "C0OPS", ts).map((m) => m.ts)).toEqual([final.ts]);
  });
});

/** Command mode (no model): nothing is written as it is thought, so no message streams. */
describe("command mode with HERMES_STREAMING=auto", () => {
  let t: TestHermes;
  beforeAll(async () => {
    t = await startTestHermes({ env: { HERMES_STREAMING: "auto" } });
  }, 120_000);
  afterAll(() => t?.stop());

  it("`run get_current_time`: no chat.startStream; the working message shows the call, then the answer is posted", async () => {
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> run get_current_time timezone=Europe/Berlin",
    });
    const ts = d.message!.ts;
    const final = await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => m.text.includes("Europe/Berlin")),
      30_000,
      "the command's answer",
    );
    expect(t.emulator.callsTo("chat.startStream")).toHaveLength(0);
    expect(final.stream).toBeUndefined();
    const working = t.emulator
      .callsTo("chat.postMessage")
      .find((c) => c.args.thread_ts === ts && String(c.args.text).includes("Working on it"));
    expect(working?.response?.ts).toBeDefined();
    expect(Number(final.ts)).toBeGreaterThan(Number(working!.response!.ts));
    expect(final.edited).toBeUndefined();
    await waitFor(() => botReplies(t, "C0OPS", ts).length === 1, 30_000, "working message removed");
    expect(botReplies(t, "C0OPS", ts).map((m) => m.ts)).toEqual([final.ts]);
  });
});
