import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.ts";
import { createMemoryRunStops, createRedisRunStops, RunStoppedError } from "../../../src/queue/run-stops.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { connectTestRedis, deleteKeysWithPrefix, uniqueRedisPrefix } from "../../helpers/redis.ts";

describe("run stops (the user's Stop, from the receiver to the run's worker)", () => {
  it("in one process: aborts the thread's runs that began before the stop, not later ones nor other threads'", async () => {
    let now = 1_000;
    const stops = createMemoryRunStops(() => now);
    const running = stops.watch("T:D1:1.0", 900);
    const other = stops.watch("T:D1:2.0", 900);
    await stops.request("T:D1:1.0");
    expect(running.signal.aborted).toBe(true);
    expect(running.signal.reason).toBeInstanceOf(RunStoppedError);
    expect(other.signal.aborted).toBe(false);
    // A run that resumes after the stop but began before it is stopped as it starts; a new one is not.
    now = 2_000;
    expect(stops.watch("T:D1:1.0", 900).signal.aborted).toBe(true);
    expect(stops.watch("T:D1:1.0", 1_500).signal.aborted).toBe(false);
    running.dispose();
    other.dispose();
  });

  it("across processes (Redis): a stop published by one reaches the run another watches, and is kept for a late watcher", async () => {
    const prefix = `${uniqueRedisPrefix("runstop")}:`;
    const a = connectTestRedis();
    const b = connectTestRedis();
    const receiver = createRedisRunStops({ redis: a, keyPrefix: prefix, logger: silentLogger() });
    const worker = createRedisRunStops({ redis: b, keyPrefix: prefix, logger: silentLogger() });
    try {
      // The worker's subscription is ready once a publish reaches it.
      const probe = worker.watch("T:D1:probe", 0);
      await waitFor(
        async () => {
          await receiver.request("T:D1:probe");
          return probe.signal.aborted;
        },
        10_000,
        "the subscription",
      );
      const running = worker.watch("T:D1:1.0", Date.now() - 1_000);
      await receiver.request("T:D1:1.0");
      await waitFor(() => running.signal.aborted, 10_000, "the run stopped");
      const late = worker.watch("T:D1:1.0", Date.now() - 60_000);
      await waitFor(() => late.signal.aborted, 10_000, "the late watcher stopped");
    } finally {
      await receiver.close();
      await worker.close();
      await deleteKeysWithPrefix(a, prefix);
      a.disconnect();
      b.disconnect();
    }
  });
});
