import { afterAll, afterEach, beforeAll } from "vitest";
import { startTestHermes, type TestHermes, waitFor } from "./hermes-harness.ts";
import { answer, ScriptedModelServer } from "./scripted-model.ts";
import { botReplies } from "./slack-thread.ts";

/**
 * The running app with streaming on (HERMES_STREAMING=auto) and a scripted model, for a describe
 * block: started in `beforeAll` (with one plain answer first: the model's first answer tells whether
 * its template opens reasoning, and until then no text is shown), faults and the model's script
 * cleared after each test, stopped in `afterAll`. `hermes()` is the app once started.
 */
export function streamingHermes(): { model: ScriptedModelServer; hermes: () => TestHermes } {
  const model = new ScriptedModelServer();
  let t: TestHermes | undefined;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({
      model,
      env: { HERMES_STREAMING: "auto", HERMES_SLACK_SURFACE: "assistant_view" },
    });
    model.enqueue(answer("Hello, I am Hermes."));
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> hi" });
    const started = t;
    await waitFor(
      () => botReplies(started, "C0OPS", d.message!.ts).find((m) => m.text.includes("Hermes")),
      30_000,
    );
  }, 120_000);
  afterEach(() => {
    t?.emulator.faults.clear();
    model.reset();
  });
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  return {
    model,
    hermes: () => {
      if (!t) throw new Error("the app is not started yet (use it inside a test)");
      return t;
    },
  };
}

/** Every chunk (`task_update`, `markdown_text`, …) the app sent with the streaming methods, in order. */
export function streamChunks(t: TestHermes): Array<Record<string, unknown>> {
  return t.emulator.calls
    .filter((c) => /^chat\.(start|append|stop)Stream$/.test(c.method))
    .flatMap((c) => {
      const raw = c.args.chunks;
      return (typeof raw === "string" ? JSON.parse(raw) : (raw ?? [])) as Array<Record<string, unknown>>;
    });
}

/** The answer text the stream carried: its `markdown_text` chunks, joined. */
export function streamedText(chunks: Array<Record<string, unknown>>): string {
  return chunks
    .filter((c) => c.type === "markdown_text")
    .map((c) => c.text)
    .join("");
}

/** Waits until the streamed message `ts` has been replaced by the answer (a `chat.update` that took). */
export function replacedByAnswer(t: TestHermes, ts: string): Promise<unknown> {
  return waitFor(
    () => t.emulator.callsTo("chat.update").some((c) => c.args.ts === ts && c.response?.ok),
    30_000,
    "the streamed message replaced by the answer",
  );
}
