import { describe, expect, it } from "vitest";
import { MAX_STREAMED_CHARS } from "../../src/agent/model/streaming/stream-cap.ts";
import { redactSecrets } from "../../src/policy/redact.ts";
import type { TestHermes } from "../helpers/hermes-harness.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { meterLoopTurns, probeHealthz } from "../helpers/loop-turns.ts";
import { answer } from "../helpers/scripted-model.ts";
import { botReplies } from "../helpers/slack-thread.ts";
import { completionChunks, sseBody } from "../helpers/sse-completion.ts";
import { streamChunks, streamedText, streamingHermes } from "../helpers/streaming-hermes.ts";

/** The event loop may be held by our own work for at most this long in one turn of the loop. */
const STALL_MS = 100;

const PROSE =
  "The VPN gateway in Berlin dropped connections at nine, and the on-call team is looking into it now. ";

/** Cuts a text into pieces of `n` characters. */
const every = (n: number) => (text: string) => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += n) out.push(text.slice(i, i + n));
  return out;
};

const sse = (chunks: Array<Record<string, unknown>>) =>
  chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("");

/** `work` with every turn of the event loop metered and /healthz probed back to back meanwhile. */
async function measured<T>(t: TestHermes, work: () => Promise<T>) {
  const probes = probeHealthz(t.hermes.port);
  let metered: Awaited<ReturnType<typeof meterLoopTurns<T>>>;
  try {
    metered = await meterLoopTurns(work);
  } finally {
    await probes.stop();
  }
  return { ...metered, statuses: await probes.stop() };
}

/**
 * A long answer streamed through the running app (a scripted model server over HTTP with SSE, the SDK,
 * the agent loop, the Slack stream to the emulator): each chunk costs the same however long the answer
 * already is, so neither the event loop nor /healthz stalls; a model that never stops is cut at the cap.
 */
describe("long streamed answers", () => {
  const { model, hermes: app } = streamingHermes();

  it("a 100,000-character answer in 20,000 chunks: bounded CPU per chunk, no turn of the loop held", {
    timeout: 240_000,
  }, async () => {
    const text = PROSE.repeat(Math.ceil(100_000 / PROSE.length)).slice(0, 100_000);
    const step = answer(text) as { completion: Record<string, unknown> };
    const chunks = completionChunks(step.completion, every(5));
    expect(chunks.filter((c) => JSON.stringify(c).includes('"content":"')).length).toBeGreaterThan(20_000);
    // Serialized before the turn: the model server shares this thread, and its work is not Hermes'.
    model.enqueue({ sse: sseBody(chunks) });

    const m = await measured(app(), async () => {
      const d = await app().sender.appMention({
        user: "U0USER1",
        channel: "C0OPS",
        text: "<@U0HERMES> write the long report",
      });
      return waitFor(
        () =>
          botReplies(app(), "C0OPS", d.message!.ts).find((r) =>
            /The full answer \(99999 characters\) is in the attached file/.test(r.text),
          ),
        180_000,
        "the long answer, as a file",
      );
    });
    const perChunkUs = (m.cpuMs / 20_000) * 1000;
    console.log(
      `100,000 characters in 20,000 chunks: ${m.cpuMs.toFixed(0)} ms of CPU on the app's thread (${perChunkUs.toFixed(0)} µs a chunk); ${m.turns.length} loop turns, longest held ${m.longest.toFixed(1)} ms; ${m.statuses.length} /healthz probes`,
    );
    expect(m.turns.length).toBeGreaterThan(5);
    expect(m.turns.filter((p) => Math.min(p.ms, p.cpu) >= STALL_MS)).toEqual([]);
    expect(m.statuses.length).toBeGreaterThan(0);
    expect(m.statuses.filter((s) => s !== 200)).toEqual([]);
    // The whole turn (the Bolt app, Postgres, the emulator and the file included) in a few seconds of
    // CPU at most: a chunk's work does not grow with the answer.
    expect(perChunkUs).toBeLessThan(200);
    // What streamed is the start of the answer.
    const streamed = streamedText(streamChunks(app()));
    expect(text.startsWith(streamed)).toBe(true);
  });

  it("a model that never stops writing: cut at the cap, its request aborted, the user told where", {
    timeout: 240_000,
  }, async () => {
    const base = {
      id: "chatcmpl-endless",
      object: "chat.completion.chunk",
      created: 1764420000,
      model: "scripted",
    };
    const piece = (content: string) => ({
      ...base,
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    });
    const batch = sse(Array.from({ length: 200 }, () => piece(PROSE)));
    let written = 0;
    let aborted = false;
    model.enqueue({
      sseParts: [
        sse([
          {
            ...base,
            choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
          },
        ]),
        async (body) => {
          // Writes until the client closes the request (a bounded amount, so a client that never cuts
          // fails the test instead of filling the memory).
          while (written < 20 * MAX_STREAMED_CHARS) {
            if (!(await body.write(batch))) break;
            written += 200 * PROSE.length;
          }
          await body.whenClosed;
          aborted = body.closed;
        },
      ],
    });
    const requestsBefore = model.requests.length;
    const d = await app().sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> go on" });
    const reply = await waitFor(
      () => botReplies(app(), "C0OPS", d.message!.ts).find((r) => r.text.includes("cut at")),
      120_000,
      "the sentence saying the answer was cut",
    );
    expect(reply.text).toContain(
      `The answer was cut at ${MAX_STREAMED_CHARS.toLocaleString("en-US")} characters`,
    );
    expect(reply.text).not.toMatch(/\n\s+at |Error:/);
    await waitFor(() => aborted, 30_000, "the model request aborted");
    expect(written).toBeGreaterThanOrEqual(MAX_STREAMED_CHARS);
    expect(written).toBeLessThan(20 * MAX_STREAMED_CHARS);
    // Not asked again: a reply cut at the cap is not retried.
    expect(model.requests.length - requestsBefore).toBe(1);
  });

  it("a credential cut into one-character chunks is never shown in part, and the streamed text is the start of the redacted answer", {
    timeout: 120_000,
  }, async () => {
    app().emulator.clearCalls();
    const head = `${PROSE}Log in with xoxb-2048-4096-AbCdEfGhIjKl and then password: hunter2hunter2 to reach the gateway. ${PROSE}`;
    const tail = `${PROSE}The key sk-proj-abcdefghijklmnopqrstuvwxyz0123 is for the ticket tool.`;
    const full = head + tail;
    const parts = completionChunks(
      (answer(full) as { completion: Record<string, unknown> }).completion,
      every(1),
    );
    const content = (c: Record<string, unknown>) =>
      (c.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content ?? "";
    let sent = 0;
    const split = parts.findIndex((c) => {
      sent += content(c).length;
      return sent >= head.length;
    });
    const expected = redactSecrets(full);
    model.enqueue({
      sseParts: [
        sse(parts.slice(0, split + 1)),
        () =>
          waitFor(
            () => streamedText(streamChunks(app())).includes("password: [secret]"),
            60_000,
            "the redacted credentials streamed while the model still writes",
          ),
        `${sse(parts.slice(split + 1))}data: [DONE]\n\n`,
      ],
    });
    const d = await app().sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> how do I log in?",
    });
    await waitFor(
      () => botReplies(app(), "C0OPS", d.message!.ts).find((r) => r.text.includes("ticket tool")),
      60_000,
      "the final answer",
    );
    const streamed = streamedText(streamChunks(app()));
    expect(streamed).toContain("Log in with [slack_token] and then password: [secret] to reach");
    expect(expected.startsWith(streamed)).toBe(true);
    for (const raw of ["xoxb", "AbCdEf", "hunter2", "sk-proj"]) expect(streamed).not.toContain(raw);
  });
});
