import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  CallScheduler,
  type Lane,
  retryAfterSeconds,
  SlackCallDropped,
} from "../../../src/slack/rate-limit/call-scheduler.ts";
import type { Pace } from "../../../src/slack/rate-limit/tiers.ts";

/** One call per second, two at once after a quiet spell; beyond them while Slack accepts (a channel's posts). */
const PACE: Pace = { perMinute: 60, burst: 2, probe: true };

/** A Web API call the test answers: records when it started, resolves or answers 429 on demand. */
function recorder() {
  const started: Array<{ name: string; at: number }> = [];
  const limitedOnce = new Map<string, number[]>();
  const call =
    (name: string, opts: { limited?: number[]; answerAfterMs?: number } = {}) =>
    async () => {
      started.push({ name, at: Date.now() });
      if (opts.answerAfterMs) await new Promise((r) => setTimeout(r, opts.answerAfterMs));
      const list = limitedOnce.get(name) ?? opts.limited ?? [];
      limitedOnce.set(name, list);
      const seconds = list.shift();
      if (seconds !== undefined)
        throw Object.assign(new Error("rate limited"), {
          code: "slack_webapi_rate_limited_error",
          retryAfter: seconds,
        });
      return name;
    };
  return { started, call, names: () => started.map((s) => s.name) };
}

const t0 = Date.UTC(2030, 0, 1);

describe("CallScheduler", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: t0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const schedule = (
    s: CallScheduler,
    run: () => Promise<string>,
    o: { key?: string; lane?: Lane; coalesceId?: string; rateLimitRetries?: number } = {},
  ) =>
    s.schedule({
      key: o.key ?? "chat.postMessage C1",
      pace: PACE,
      lane: o.lane ?? "deliver",
      ...(o.coalesceId ? { coalesceId: o.coalesceId } : {}),
      ...(o.rateLimitRetries === undefined ? {} : { rateLimitRetries: o.rateLimitRetries }),
      run,
    });

  it("sends while Slack accepts: beyond the burst one call at a time, in order; after a 429, one per interval", async () => {
    const s = new CallScheduler();
    const r = recorder();
    const done = [
      schedule(s, r.call("a")),
      schedule(s, r.call("b")),
      // Slack takes 100 ms to answer c: d does not go before it is answered.
      schedule(s, r.call("c", { answerAfterMs: 100 })),
      schedule(s, r.call("d")),
      schedule(s, r.call("e", { limited: [1] })),
      schedule(s, r.call("f")),
      schedule(s, r.call("g")),
    ];
    await vi.advanceTimersByTimeAsync(0);
    // The bucket's two at once, then c beyond it once a and b were answered.
    expect(r.names()).toEqual(["a", "b", "c"]);
    await vi.advanceTimersByTimeAsync(99);
    expect(r.names()).toEqual(["a", "b", "c"]);
    await vi.advanceTimersByTimeAsync(1);
    // c answered: d goes, then e, which Slack refuses with Retry-After 1 s.
    expect(r.names()).toEqual(["a", "b", "c", "d", "e"]);
    await vi.advanceTimersByTimeAsync(999);
    expect(r.names()).toHaveLength(5);
    await vi.advanceTimersByTimeAsync(1);
    // One call when the wait is over (e again, in its place), then the bucket's pace: one a second.
    expect(r.names().slice(5)).toEqual(["e"]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.names().slice(5)).toEqual(["e", "f"]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.started.map((x) => x.at - t0)).toEqual([0, 0, 0, 100, 100, 1100, 2100, 3100]);
    expect(await Promise.all(done)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    // Once idle and full again the budget is forgotten: the next burst goes while Slack accepts.
    await vi.advanceTimersByTimeAsync(2000);
    expect(s.queued()).toEqual({});
    const again = ["h", "i", "j", "k"].map((n) => schedule(s, r.call(n)));
    await vi.advanceTimersByTimeAsync(0);
    expect(r.names().slice(8)).toEqual(["h", "i", "j", "k"]);
    await Promise.all(again);
    // A workspace-wide budget (no probe) never goes beyond its bucket: one a second after the burst.
    const shared = ["w1", "w2", "w3"].map((n) =>
      s.schedule({ key: "users.list", pace: { perMinute: 60, burst: 2 }, lane: "deliver", run: r.call(n) }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(r.names().slice(12)).toEqual(["w1", "w2"]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.names().slice(12)).toEqual(["w1", "w2", "w3"]);
    await Promise.all(shared);
  });

  it("waits out Retry-After on a 429, pausing only that budget, and keeps the calls' order", async () => {
    const s = new CallScheduler();
    const r = recorder();
    const a = schedule(s, r.call("a", { limited: [3] }));
    const b = schedule(s, r.call("b"));
    const c = schedule(s, r.call("c"));
    const other = schedule(s, r.call("other-channel"), { key: "chat.postMessage C2" });
    await vi.advanceTimersByTimeAsync(0);
    // a was limited (3 s); b went in the same burst; other channel untouched.
    expect(r.names()).toEqual(["a", "b", "other-channel"]);
    await expect(other).resolves.toBe("other-channel");
    expect(s.queued()["chat.postMessage C1"]).toMatchObject({ deliver: 2 });
    expect(s.queued()["chat.postMessage C1"]!.pausedMs).toBe(3000);
    const another = schedule(s, r.call("another"), { key: "chat.postMessage C2" });
    await vi.advanceTimersByTimeAsync(0);
    await expect(another).resolves.toBe("another"); // C2 is not held back by C1's 429
    await vi.advanceTimersByTimeAsync(2999);
    expect(r.names()).not.toContain("c");
    await vi.advanceTimersByTimeAsync(1);
    // One call when the wait is over: a again (its place kept, ahead of c), then c a second later.
    expect(r.names().slice(4)).toEqual(["a"]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.names().slice(4)).toEqual(["a", "c"]);
    expect(await Promise.all([a, b, c])).toEqual(["a", "b", "c"]);
  });

  it("fails a call that is limited more often than its retry budget, with Slack's error", async () => {
    const s = new CallScheduler({ rateLimitRetries: 2 });
    const r = recorder();
    const a = schedule(s, r.call("a", { limited: [1, 1, 1] }));
    const settled = a.catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(5000);
    expect(r.names()).toEqual(["a", "a", "a"]);
    expect(retryAfterSeconds(await settled)).toBe(1);
    // A call that must not wait fails at the first 429.
    const once = schedule(s, r.call("once", { limited: [30] }), { rateLimitRetries: 0 });
    await expect(once).rejects.toMatchObject({ retryAfter: 30 });
  });

  it("a call with a deadline fails as soon as it cannot make it, so its caller can do something quicker", async () => {
    const s = new CallScheduler();
    const r = recorder();
    const o = (maxWaitMs: number) => ({ key: "chat.update", maxWaitMs, rateLimitRetries: 0 });
    const limited = schedule(s, r.call("first", { limited: [30] }), { key: "chat.update" });
    const second = schedule(s, r.call("second"), { key: "chat.update" });
    // Queued behind the burst: would start at 1 s, may wait 2 s.
    const patient = s.schedule({ ...o(2000), pace: PACE, lane: "deliver", run: r.call("patient") });
    const settled = patient.catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(0);
    // The 429 pauses the budget for 30 s: "patient" knows at once that it cannot make it.
    expect(await settled).toMatchObject({ reason: "too_late" });
    expect(Date.now()).toBe(t0);
    await vi.advanceTimersByTimeAsync(31_000);
    await expect(Promise.all([limited, second])).resolves.toEqual(["first", "second"]);
    // Without a 429, the deadline passes while it waits its turn.
    const fill = [
      schedule(s, r.call("f1"), { key: "chat.update" }),
      schedule(s, r.call("f2"), { key: "chat.update" }),
    ];
    const late = s.schedule({ ...o(500), pace: PACE, lane: "deliver", run: r.call("late") });
    const lateSettled = late.catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(500);
    expect(await lateSettled).toMatchObject({ reason: "too_late" });
    await vi.advanceTimersByTimeAsync(2000);
    await Promise.all(fill);
    expect(r.names()).not.toContain("patient");
    expect(r.names()).not.toContain("late");
  });

  it("progress: only the latest update of a message is sent, after the calls that must go", async () => {
    const s = new CallScheduler();
    const r = recorder();
    const key = "chat.update";
    // Use the burst up, so everything below queues.
    await Promise.all([schedule(s, r.call("x"), { key }), schedule(s, r.call("y"), { key })]);
    const p1 = schedule(s, r.call("progress 1"), { key, lane: "progress", coalesceId: "m1" });
    const other = schedule(s, r.call("other message"), { key, lane: "progress", coalesceId: "m2" });
    const p2 = schedule(s, r.call("progress 2"), { key, lane: "progress", coalesceId: "m1" });
    const answer = schedule(s, r.call("answer"), { key });
    await expect(p1).rejects.toMatchObject({ reason: "superseded" });
    // The answer goes beyond the bucket at once; progress never does.
    await vi.advanceTimersByTimeAsync(0);
    expect(r.names().slice(2)).toEqual(["answer"]);
    await vi.advanceTimersByTimeAsync(1000);
    // Progress keeps one token back for calls that must go: it needs two in the bucket.
    expect(r.names().slice(2)).toEqual(["answer"]);
    await vi.advanceTimersByTimeAsync(1000);
    // m1 kept its place ahead of m2 when its update was replaced.
    expect(r.names().slice(2)).toEqual(["answer", "progress 2"]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.names().slice(2)).toEqual(["answer", "progress 2", "other message"]);
    await expect(Promise.all([p2, other, answer])).resolves.toEqual([
      "progress 2",
      "other message",
      "answer",
    ]);
  });

  it("progress: a 429 drops it, a cancelled one is never sent, and a full lane drops the oldest", async () => {
    const s = new CallScheduler({ maxQueuedProgress: 2 });
    const r = recorder();
    const key = "chat.update";
    const limited = schedule(s, r.call("p", { limited: [5] }), { key, lane: "progress", coalesceId: "m0" });
    await expect(limited).rejects.toMatchObject({ retryAfter: 5 });
    expect(r.names()).toEqual(["p"]); // not retried
    const a = schedule(s, r.call("a"), { key, lane: "progress", coalesceId: "m1" });
    const b = schedule(s, r.call("b"), { key, lane: "progress", coalesceId: "m2" });
    const c = schedule(s, r.call("c"), { key, lane: "progress", coalesceId: "m3" });
    await expect(a).rejects.toBeInstanceOf(SlackCallDropped);
    await expect(a).rejects.toMatchObject({ reason: "lane_full" });
    s.cancelProgress(key, "m2");
    await expect(b).rejects.toMatchObject({ reason: "cancelled" });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(c).resolves.toBe("c");
    expect(r.names()).toEqual(["p", "c"]);
  });

  it("a full deliver queue refuses at once instead of growing without bound", async () => {
    const s = new CallScheduler({ maxQueuedDeliver: 3 });
    const r = recorder();
    const calls = Array.from({ length: 6 }, (_, i) => schedule(s, r.call(`c${i}`)));
    // Two went at once (the burst); three wait; the sixth is refused.
    await expect(calls[5]).rejects.toMatchObject({ reason: "queue_full" });
    await vi.advanceTimersByTimeAsync(3000);
    await expect(Promise.all(calls.slice(0, 5))).resolves.toHaveLength(5);
  });

  it("says how long a call would wait, and forgets budgets once they are full again", async () => {
    const s = new CallScheduler();
    const r = recorder();
    expect(s.expectedWaitMs("chat.postMessage C1")).toBe(0);
    void schedule(s, r.call("a", { limited: [1] }));
    void schedule(s, r.call("b"));
    void schedule(s, r.call("c"));
    await vi.advanceTimersByTimeAsync(0);
    // Slack pushed back on a for 1 s: a goes again then, c a second later, a call made now after c.
    expect(s.expectedWaitMs("chat.postMessage C1")).toBe(3000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(s.expectedWaitMs("chat.postMessage C1")).toBe(2000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.names()).toEqual(["a", "b", "a", "c"]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(s.queued()).toEqual({});
  });
});
