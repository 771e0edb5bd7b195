import { afterEach, describe, expect, it } from "vitest";
import { STREAM_MAX_AGE_MS } from "../../src/sandbox/workspace.ts";
import { planAnswer } from "../../src/slack/answer-blocks.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { answer, toolCalls } from "../helpers/scripted-model.ts";
import { botReplies } from "../helpers/slack-thread.ts";
import { completionChunks, randomCutter } from "../helpers/sse-completion.ts";
import { replacedByAnswer, streamingHermes } from "../helpers/streaming-hermes.ts";

const ANSWER = [
  "The VPN gateway in Berlin dropped connections at nine this morning.",
  "The on-call team traced it to an expired certificate on the second node.",
  "A new certificate was issued and rolled out to both nodes by ten.",
  "Connections have been stable since then, and the incident report is in the ticket.",
].join(" ");

const sse = (chunks: Array<Record<string, unknown>>) =>
  chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("");

const content = (c: Record<string, unknown>) =>
  (c.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content ?? "";

/** Completion chunks cut into `n` groups of about the same amount of answer text. */
function groups(chunks: Array<Record<string, unknown>>, n: number): Array<Array<Record<string, unknown>>> {
  const total = chunks.reduce((sum, c) => sum + content(c).length, 0);
  const out: Array<Array<Record<string, unknown>>> = Array.from({ length: n }, () => []);
  let sent = 0;
  for (const c of chunks) {
    out[Math.min(n - 1, Math.floor((sent * n) / total))]?.push(c);
    sent += content(c).length;
  }
  return out;
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).join(" ");

/**
 * Slack ends a streaming message after about five minutes (`message_not_in_streaming_state`): here the
 * emulator ends it after 300 ms, and a model that writes slowly streams across that limit again and
 * again. The answer goes on in new messages of the thread, and the thread reads it once, in order.
 */
describe("a stream Slack ends while the answer is written", () => {
  const { model, hermes: app } = streamingHermes();
  afterEach(() => {
    app().ws.streamMaxAgeMs = STREAM_MAX_AGE_MS;
  });

  it("continues in new messages: the whole answer once, in order, the task card kept, the buttons once, no error", {
    timeout: 120_000,
  }, async () => {
    const LIMIT_MS = 300;
    app().ws.streamMaxAgeMs = LIMIT_MS;
    app().emulator.clearCalls();
    /** The `n`th streamed message has started and is now older than Slack lets it stream. */
    const nthEnded = (n: number) => () => {
      const started = app()
        .emulator.callsTo("chat.startStream")
        .filter((c) => c.response?.ok);
      const ts = started[n - 1]?.response?.ts;
      return started.length === n && typeof ts === "string" && Date.now() - Number(ts) * 1000 > LIMIT_MS;
    };
    const parts = groups(
      completionChunks(
        (answer(ANSWER) as { completion: Record<string, unknown> }).completion,
        randomCutter(9),
      ),
      4,
    );
    // Each part is written only once the message streaming it so far is past the limit: its text
    // starts a new message.
    model.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), {
      sseParts: [
        sse(parts[0] ?? []),
        () => waitFor(nthEnded(1), 30_000, "the first message past the limit"),
        sse(parts[1] ?? []),
        () => waitFor(nthEnded(2), 30_000, "the second message past the limit"),
        sse(parts[2] ?? []),
        () => waitFor(nthEnded(3), 30_000, "the third message past the limit"),
        `${sse(parts[3] ?? [])}data: [DONE]\n\n`,
      ],
    });
    const d = await app().sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> what happened to the VPN?",
    });
    const ts = d.message!.ts;
    const streamedEnd = await waitFor(
      () =>
        botReplies(app(), "C0OPS", ts).find(
          (m) => m.text.includes("incident report") && m.stream?.state === "stopped",
        ),
      60_000,
      "the end of the answer",
    );
    await replacedByAnswer(app(), streamedEnd.ts);
    const last = app().ws.getMessage("C0OPS", streamedEnd.ts)!;

    const refused = app()
      .emulator.calls.filter((c) => /^chat\.(append|stop)Stream$/.test(c.method))
      .filter((c) => c.response?.error === "message_not_in_streaming_state");
    expect(refused.length).toBeGreaterThanOrEqual(2);
    const replies = botReplies(app(), "C0OPS", ts);
    // The streamed messages only (the working message was removed), the last one holding the end.
    expect(replies.length).toBeGreaterThanOrEqual(3);
    expect(replies.every((m) => m.stream?.state === "stopped")).toBe(true);
    expect(replies.at(-1)?.ts).toBe(last.ts);
    // The earlier messages keep what they showed; the last one is the rest of the answer, as the
    // post-and-update path shows it: together the whole answer, once, in order.
    const earlier = replies.slice(0, -1).map((m) => m.text);
    expect(earlier.every((t) => /\S/.test(t))).toBe(true);
    const shownBefore = earlier.join("");
    expect(ANSWER.startsWith(shownBefore)).toBe(true);
    const plan = planAnswer(ANSWER.slice(shownBefore.length));
    if (plan.kind !== "messages") throw new Error("expected one message");
    expect(last.text).toBe(plan.messages[0]!.text);
    expect(words(replies.map((m) => m.text).join(" "))).toBe(words(ANSWER));
    // The task card's states are all shown: none lost to the rollover.
    const cards = replies.flatMap((m) => m.stream?.tasks ?? []);
    expect(cards.map((c) => c.status)).toContain("complete");
    // The feedback buttons once, on the last message; no error shown.
    const feedback = replies.flatMap((m) =>
      (m.blocks ?? []).filter((b) =>
        String((b as { block_id?: unknown }).block_id).startsWith("hermes.feedback."),
      ),
    );
    expect(feedback).toHaveLength(1);
    expect(
      (last.blocks ?? []).some((b) =>
        String((b as { block_id?: unknown }).block_id).startsWith("hermes.feedback."),
      ),
    ).toBe(true);
    expect(replies.map((m) => m.text).join("\n")).not.toMatch(/:warning:|went wrong|error/i);
  });
});
