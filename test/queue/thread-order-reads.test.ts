import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import type { TurnJob } from "../../src/queue/jobs.ts";
import { inThreadOrder } from "../../src/queue/thread-order.ts";

const job = {
  type: "turn",
  eventId: "Ev1",
  sessionKey: "T1:C1:1.000",
  threadTs: "1.000",
  messageTs: "2.000",
} as unknown as TurnJob;

/** A message that starts its own thread (its ts is the thread's). */
const firstOfThread = { ...job, eventId: "Ev0", messageTs: "1.000" } as TurnJob;

/** Storage whose order check answers `earlier` lists in turn, each once `release` is called. */
function fakeStorage(answers: string[][]) {
  const log: string[] = [];
  const releases: Array<() => void> = [];
  const s = {
    runtime: { limits: { turnTimeoutMs: 60_000 } },
    storage: {
      sessions: {
        withLock: async <T>(_key: string, fn: (signal: AbortSignal) => Promise<T>) =>
          fn(new AbortController().signal),
      },
      events: {
        earlierUnfinished: () => {
          log.push("check");
          return new Promise<string[]>((resolve) => releases.push(() => resolve(answers.shift() ?? [])));
        },
      },
    },
  };
  return { s: s as unknown as Parameters<typeof inThreadOrder>[0], log, releases };
}

/** Runs a turn through `inThreadOrder` whose reads count up (1, 2, …), logging reads and the turn. */
function orderedTurn(s: Parameters<typeof inThreadOrder>[0], log: string[], turnJob: TurnJob = job) {
  let n = 0;
  return inThreadOrder(
    s,
    turnJob,
    {
      signal: new AbortController().signal,
      logger: silentLogger(),
      reads: () => {
        log.push("reads");
        return ++n;
      },
    },
    async (_lock, reads) => {
      log.push(`turn with reads ${reads}`);
      return "answered";
    },
  );
}

describe("inThreadOrder with the turn's first reads", () => {
  it("starts the reads under the lock alongside the order check, and hands them to the turn", async () => {
    const { s, log, releases } = fakeStorage([[]]);
    const done = orderedTurn(s, log);
    // Both went out before the check answered: they do not wait for each other.
    await expect.poll(() => log).toEqual(["reads", "check"]);
    releases.shift()!();
    expect(await done).toBe("answered");
    expect(log).toEqual(["reads", "check", "turn with reads 1"]);
  });

  it("drops the reads of an attempt that has to wait for an earlier message, and reads again", async () => {
    const { s, log, releases } = fakeStorage([["EvEarlier"], []]);
    const done = orderedTurn(s, log);
    await expect.poll(() => releases.length).toBe(1);
    releases.shift()!();
    await expect.poll(() => releases.length).toBe(1);
    releases.shift()!();
    expect(await done).toBe("answered");
    expect(log).toEqual(["reads", "check", "reads", "check", "turn with reads 2"]);
  });

  it("sends no order check for a message that starts its thread: nothing in it came before", async () => {
    const { s, log } = fakeStorage([["EvEarlier"]]);
    expect(await orderedTurn(s, log, firstOfThread)).toBe("answered");
    expect(log).toEqual(["reads", "turn with reads 1"]);
  });
});
