import { describe, expect, it, vi } from "vitest";
import { createFollowUpLane } from "../../src/slack/follow-up-lane.ts";
import { waitFor } from "../helpers/hermes-harness.ts";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe("the follow-up lane (work after an event's ack)", () => {
  it("runs one thread's tasks in the order they were handed in, other threads alongside", async () => {
    const lane = createFollowUpLane({ concurrency: 4 });
    const order: string[] = [];
    const slow = gate();
    const done = Promise.all([
      lane.run("t1", async () => {
        await slow.opened;
        order.push("t1-first");
      }),
      lane.run("t1", async () => {
        order.push("t1-second");
      }),
      lane.run("t2", async () => {
        order.push("t2");
      }),
    ]);
    await waitFor(() => order.includes("t2"), 5000, "the other thread's task");
    expect(order).toEqual(["t2"]); // t1's second waits for its first
    slow.open();
    await done;
    expect(order).toEqual(["t2", "t1-first", "t1-second"]);
  });

  it("a busy channel takes at most its share of slots: another channel's follow-up is not held behind it", async () => {
    const lane = createFollowUpLane({ concurrency: 4, perGroup: 2 });
    const busy = gate();
    const started: string[] = [];
    const all: Array<Promise<void>> = [];
    for (let i = 0; i < 10; i++) {
      all.push(
        lane.run(
          `busy-${i}`,
          async () => {
            started.push(`busy-${i}`);
            await busy.opened; // waiting on the busy channel's Slack rate budget
          },
          "C-BUSY",
        ),
      );
    }
    all.push(lane.run("quiet-1", async () => void started.push("quiet-1"), "C-QUIET"));
    await waitFor(() => started.includes("quiet-1"), 5000, "the quiet channel's follow-up");
    expect(started.filter((s) => s.startsWith("busy-"))).toHaveLength(2);
    busy.open();
    await Promise.all(all);
    expect(started).toHaveLength(11);
  });

  it("holds follow-ups while a claim is in flight, and lets them go once it is done", async () => {
    const lane = createFollowUpLane({ concurrency: 4, maxDeferMs: 60_000 });
    const claim = gate();
    const claiming = lane.first(() => claim.opened);
    let ran = false;
    const task = lane.run("t1", async () => {
      ran = true;
    });
    // A claim still in flight: nothing runs across several of the lane's checks (one per 5 ms).
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
    expect(ran).toBe(false);
    claim.open();
    await claiming;
    await task;
    expect(ran).toBe(true);
  });

  it("a steady stream of claims delays a follow-up by at most maxDeferMs, never for good", async () => {
    const lane = createFollowUpLane({ concurrency: 1, maxDeferMs: 50 });
    const claim = gate();
    const claiming = lane.first(() => claim.opened);
    let ran = false;
    await lane.run("t1", async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    claim.open();
    await claiming;
  });

  it("a failing task rejects its own promise and does not stop the thread's next one", async () => {
    const lane = createFollowUpLane({ concurrency: 2 });
    const first = lane.run("t1", async () => {
      throw new Error("Slack said no");
    });
    const second = lane.run("t1", async () => undefined);
    await expect(first).rejects.toThrow("Slack said no");
    await expect(second).resolves.toBeUndefined();
  });

  it("with deliveries counted, follow-ups wait exactly while one is unanswered, and go once none is", async () => {
    const lane = createFollowUpLane({ concurrency: 4, maxDeferMs: 60_000 });
    const first = lane.arriving();
    const second = lane.arriving();
    const started: string[] = [];
    const task = lane.run("t1", async () => void started.push("t1"));
    first();
    // One delivery is still unanswered (a burst still arriving): nothing starts. A lane that counts
    // no deliveries (Socket Mode) runs its task once its quiet window has passed; by then this one
    // would have too, had it not waited for the answer.
    const uncounted = createFollowUpLane({ concurrency: 4, maxDeferMs: 60_000 });
    await uncounted.run("t0", async () => undefined);
    expect(started).toEqual([]);
    second();
    second(); // answering twice counts once
    await task;
    expect(started).toEqual(["t1"]);
    // Nothing unanswered and no claim in flight: the next one goes at once (not after maxDeferMs).
    const t0 = performance.now();
    await lane.run("t2", async () => void started.push("t2"));
    expect(started).toEqual(["t1", "t2"]);
    expect(performance.now() - t0).toBeLessThan(60_000);
  });

  it("a lone delivery's follow-up goes once it is answered, without waiting on any timer", async () => {
    // Only timeouts are faked and never advanced: a follow-up that waited on one would never run.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const lane = createFollowUpLane({ concurrency: 4, maxDeferMs: 60_000 });
      // Answered before the lane's first look…
      const answered = lane.arriving();
      const early = lane.run("t1", async () => undefined);
      answered();
      await early;
      // …and after it (the lane found the delivery unanswered and set its quiet-window timer).
      const late = lane.arriving();
      let ran = false;
      const task = lane.run("t2", async () => {
        ran = true;
      });
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      expect(ran).toBe(false);
      late();
      await task;
      expect(ran).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
