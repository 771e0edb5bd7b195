import { describe, expect, it } from "vitest";
import { describeBurst, runSlackBurst } from "./burst-scenario.ts";

/** 429s one call may get before it fails: the scheduler's default. */
const RETRY_BUDGET = 5;

describe("a burst of 200 threads in one channel under Slack's rate limits", () => {
  it("answers every thread exactly once; progress thins out; another channel is not held back", async () => {
    // The emulator enforces Slack's published rates (×20, so the burst takes seconds, not minutes),
    // and pushes back harder as the burst starts: the busy channel's first posts and the first updates
    // answer 429 with Retry-After 2 s, which Hermes must wait out without losing or repeating anything.
    const r = await runSlackBurst({
      threads: 200,
      quietThreads: 5,
      scale: 20,
      pushback: { busyPosts: 3, updates: 2, retryAfterSeconds: 2 },
    });
    console.log(describeBurst(r));
    expect(r.wrongAnswers).toEqual([]); // every thread: its one answer, once
    expect(r.limited.total).toBeGreaterThan(0); // Slack did push back
    expect(r.limited.maxPerCall, r.limited.worstCall).toBeLessThanOrEqual(RETRY_BUDGET);
    // The quiet channel did not wait for the busy one's 429s and backlog (paced at 20 posts/s there,
    // its 200 working messages alone take 10 s): all its threads were answered before half the busy ones.
    expect(r.quiet.busyAnsweredThen).toBeLessThan(r.threads / 2);
    // Answers are new messages, never an update of the working message (Slack would mark it "(edited)");
    // every working message is removed once its answer was posted below it.
    expect(r.answers.replaced).toBe(0);
    expect(r.workingLeft).toBe(0);
  }, 600_000);
});
