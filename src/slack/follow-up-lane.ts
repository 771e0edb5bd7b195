import pLimit from "p-limit";

export interface FollowUpLane {
  /**
   * Runs `task` after the tasks handed in before it under the same `key` (a thread), and at most
   * `concurrency` tasks of all keys at once. Resolves or rejects with the task.
   */
  run(key: string, task: () => Promise<void>): Promise<void>;
  /**
   * Runs `work` (an event's claim, which its ack waits for) with priority: while any such work is in
   * flight, follow-up tasks start one at a time, so a burst's acks are not queued behind its
   * follow-ups' Web API posts, enqueues and database reads on the same event loop and pool.
   */
  first<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * The work that follows an event's ack (working message, enqueue): one thread's tasks in the order
 * they were recorded, so two quick messages are queued in arrival order; a burst's acks first. In
 * process only: across receivers, the worker keeps a thread's turns in message order.
 */
export function createFollowUpLane({ concurrency }: { concurrency: number }): FollowUpLane {
  const limit = pLimit(concurrency);
  const tails = new Map<string, Promise<void>>();
  let acking = 0;
  return {
    run(key, task) {
      const previous = tails.get(key) ?? Promise.resolve();
      const run = previous.then(() => limit(task));
      const tail = run.catch(() => undefined);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return run;
    },
    async first(work) {
      if (acking++ === 0) limit.concurrency = 1;
      try {
        return await work();
      } finally {
        if (--acking === 0) limit.concurrency = concurrency;
      }
    },
  };
}
