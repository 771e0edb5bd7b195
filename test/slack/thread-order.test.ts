import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { answer, type RecordedRequest, ScriptedModelServer } from "../helpers/scripted-model.ts";

const CHANNEL = "C0OPS";
const THREADS = 8;

/**
 * Two quick messages in one thread, delivered at the same moment (so their acks, working messages and
 * queue entries race each other, and up to 32 turns run at once per worker): the turns never overlap,
 * they run in the order of the messages, and the second one's history holds the first one's answer.
 */
describe("turns of one thread, in message order", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, redis: true });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  it(`${THREADS} threads, each with a first message and a reply sent together`, async () => {
    const userTexts = (req: RecordedRequest) =>
      req.body.messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
    let overlapped = 0;
    const running = new Set<string>();
    model.fallback = (req: RecordedRequest) => {
      const last = userTexts(req).at(-1) ?? "";
      const thread = /thread (\d+)/.exec(last)?.[1] ?? "?";
      // A second call of the same thread while one runs would be an overlap. (This timer is set
      // before the server's own delay, so it fires before the answer leaves.)
      if (running.has(thread)) overlapped++;
      running.add(thread);
      setTimeout(() => {
        running.delete(thread);
      }, 100);
      return {
        ...(answer(`Answered "${last.replace(/^[\s\S]*\n\n/, "")}".`) as object),
        delayMs: 100,
      } as never;
    };

    const threads = Array.from({ length: THREADS }, (_, i) => {
      const first = postAsUser(t.ws, {
        user: "U0USER1",
        channel: CHANNEL,
        text: `<@U0HERMES> thread ${i} first`,
      });
      const reply = postAsUser(t.ws, {
        user: "U0USER1",
        channel: CHANNEL,
        text: `<@U0HERMES> thread ${i} second`,
        threadTs: first.ts,
      });
      return { i, first, reply };
    });
    const deliveries = await Promise.all(
      threads.flatMap(({ first, reply }) => [
        t.sender.appMention({ user: "U0USER1", channel: CHANNEL, text: first.text, ts: first.ts }),
        t.sender.appMention({
          user: "U0USER1",
          channel: CHANNEL,
          text: reply.text,
          ts: reply.ts,
          threadTs: first.ts,
        }),
      ]),
    );
    expect(deliveries.map((d) => d.status)).toEqual(deliveries.map(() => 200));

    const answers = (ts: string) =>
      (t.thread(CHANNEL, ts) ?? [])
        .filter((m) => m.user === "U0HERMES" && !m.text.startsWith(":hourglass_flowing_sand:"))
        .map((m) => m.text);
    await waitFor(
      () => threads.every(({ first }) => answers(first.ts).length >= 2),
      120_000,
      "both messages of every thread answered",
    );
    expect(overlapped).toBe(0);
    for (const { i, first } of threads) {
      const requests = model.requests.filter((r) => userTexts(r).some((u) => u.includes(`thread ${i} `)));
      expect(requests).toHaveLength(2);
      // The first message's turn ran first; the reply's turn saw its answer.
      expect(userTexts(requests[0]!).at(-1)).toContain(`thread ${i} first`);
      expect(userTexts(requests[1]!).at(-1)).toContain(`thread ${i} second`);
      const seen = requests[1]!.body.messages.filter((m) => m.role === "assistant").map((m) => m.content);
      expect(seen).toContain(`Answered "thread ${i} first".`);
      // Each answer is posted once its turn ends (its working message removed): with both
      // sent at the same moment, in either order.
      expect(answers(first.ts).sort()).toEqual([
        `Answered "thread ${i} first".`,
        `Answered "thread ${i} second".`,
      ]);
    }
  }, 200_000);
});
