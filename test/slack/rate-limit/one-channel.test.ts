import { describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../../src/sandbox/workspace-types.ts";
import { startTestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import {
  answer,
  type RecordedRequest,
  ScriptedModelServer,
  toolCalls,
} from "../../helpers/scripted-model.ts";

const BUSY = "C0OPS";
const MENTIONS = 24;
/** Turns a worker runs at once: far fewer than the mentions, so a delivery holding its slot would show. */
const WORKERS = 4;
const WORKING = ":hourglass_flowing_sand:";
/** The thread whose answer is too long for one message (its parts must stay together, in order). */
const LONG = 7;
/** Threads that get a second message right after the burst (its answer must come after the first). */
const FOLLOWED = [3, 15];

const longAnswer = (name: string) =>
  Array.from(
    { length: 70 },
    (_, i) => `Line ${i + 1} of the long answer for ${name}: ${"x".repeat(170)}`,
  ).join("\n\n");

describe("one busy channel under Slack's real rate limits", () => {
  it("every requested tool runs at once while the answers go out at Slack's pace, each once, in thread order", async () => {
    const model = new ScriptedModelServer();
    model.record = false;
    // When each thread's tool result reached the model: its tool had run by then.
    const toolDoneAt = new Map<string, number>();
    model.fallback = (req: RecordedRequest) => {
      const users = req.body.messages.filter((m) => m.role === "user");
      const user = String(users.at(-1)?.content ?? "");
      const name = /(busy thread \d+)( again)?/.exec(user)?.[0] ?? "unknown thread";
      if (
        !req.body.messages.slice(req.body.messages.lastIndexOf(users.at(-1)!)).some((m) => m.role === "tool")
      )
        return { ...(toolCalls([{ name: "get_current_time", args: {} }]) as object), delayMs: 50 } as never;
      if (!toolDoneAt.has(name)) toolDoneAt.set(name, Date.now());
      const text = name === `busy thread ${LONG}` ? longAnswer(name) : `Answer for ${name}.`;
      return { ...(answer(text) as object), delayMs: 50 } as never;
    };
    await model.start();
    const t = await startTestHermes({
      model,
      env: { HERMES_SLACK_RATE_SCALE: "1", HERMES_WORKER_CONCURRENCY: String(WORKERS) },
      emulator: { rateLimits: { scale: 1 } },
    }).catch(async (err: unknown) => {
      await model.stop();
      throw err;
    });
    try {
      const started = Date.now();
      const threads = await Promise.all(
        Array.from({ length: MENTIONS }, async (_, i) => {
          const name = `busy thread ${i}`;
          const d = await t.sender.appMention({
            user: "U0USER1",
            channel: BUSY,
            text: `<@U0HERMES> ${name}`,
          });
          expect(d.status).toBe(200);
          return { name, ts: d.message!.ts };
        }),
      );
      for (const i of FOLLOWED) {
        const d = await t.sender.appMention({
          user: "U0USER1",
          channel: BUSY,
          threadTs: threads[i]!.ts,
          text: `<@U0HERMES> busy thread ${i} again`,
        });
        expect(d.status).toBe(200);
      }
      const replies = (ts: string): SandboxMessage[] =>
        (t.thread(BUSY, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
      const expected = (i: number) => {
        const first = i === LONG ? [] : [`Answer for busy thread ${i}.`];
        return FOLLOWED.includes(i) ? [...first, `Answer for busy thread ${i} again.`] : first;
      };
      const answersOf = (i: number) =>
        replies(threads[i]!.ts)
          .map((m) => m.text)
          .filter((text) => !text.startsWith(WORKING));
      // The long answer's lines as its messages show them (the blocks: a message's text is a shorter fallback).
      const linesOfLong = () =>
        replies(threads[LONG]!.ts)
          .filter((m) => !m.text.startsWith(WORKING))
          .flatMap((m) => [...JSON.stringify(m.blocks ?? []).matchAll(/Line (\d+) of the long answer/g)])
          .map((m) => Number(m[1]));
      // Bounds a hang only: at one message a second, 26 answers (one in two or three parts) take about 30 s.
      await waitFor(
        () =>
          threads.every((_, i) =>
            i === LONG ? linesOfLong().includes(70) : answersOf(i).length >= expected(i).length,
          ),
        240_000,
        "every thread answered",
      );

      // When each answer was posted (the emulator's record of successful posts and updates).
      const answerPosts = t.emulator.calls
        .filter((c) => c.response?.ok === true && /^(Answer for|Line 1 of)/.test(String(c.args.text ?? "")))
        .map((c) => c.at.getTime())
        .sort((a, b) => a - b);
      // A thread's second message waits for its first answer (a thread's turns run one after another,
      // each answer shown before the next turn starts): only the threads' first turns are timed.
      const lastTool = Math.max(
        ...[...toolDoneAt.entries()].filter(([name]) => !name.endsWith(" again")).map(([, at]) => at),
      );
      console.log(
        `one channel, ${MENTIONS} mentions at Slack's rates, ${WORKERS} turns at once: every tool ran ` +
          `${lastTool - started} ms after the burst; answers posted from ${answerPosts[0]! - started} ms ` +
          `to ${answerPosts.at(-1)! - started} ms`,
      );
      expect(toolDoneAt.size).toBe(MENTIONS + FOLLOWED.length);
      // The work did not wait for Slack: every tool had run before the 12th answer could be posted
      // (at about one post a second; with deliveries holding the turn slots, tools of the later
      // threads would run only as earlier answers went out, one a second).
      expect(lastTool).toBeLessThan(answerPosts[11]!);

      for (const [i, th] of threads.entries()) {
        const got = answersOf(i);
        if (i === LONG) {
          // Its parts, together and in order: every line once, in the answer's order.
          expect(got.length).toBeGreaterThanOrEqual(2);
          expect(linesOfLong()).toEqual(Array.from({ length: 70 }, (_, n) => n + 1));
          continue;
        }
        expect(got, th.name).toEqual(expected(i));
      }
      // No working message is left behind: replaced by its answer, removed, or never posted.
      await waitFor(
        () => threads.every((th) => !replies(th.ts).some((m) => m.text.startsWith(WORKING))),
        60_000,
        "working messages gone",
      );
    } finally {
      await t.stop();
      await model.stop();
    }
  }, 300_000);
});
