import pLimit from "p-limit";

export interface FollowUpLane {
  /**
   * Runs `task` after the tasks handed in before it under the same `key` (a thread), once no ack is
   * waiting (or it has waited `maxDeferMs`), and at most `concurrency` tasks of all keys at once.
   * Resolves or rejects with the task.
   */
  run(key: string, task: () => Promise<void>): Promise<void>;
  /** Runs `work`, an event's claim that its ack waits for, ahead of every follow-up task. */
  first<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves once no claim is in flight or just started (or after `maxDeferMs`): when follow-ups may go. */
  quiet(): Promise<void>;
}

/** Follow-ups start once no claim has started for this long and none is in flight. */
const QUIET_MS = 5;
/** …or once the oldest waiting one has waited this long: a steady stream of events still gets them. */
const MAX_DEFER_MS = 500;

/**
 * The work that follows an event's ack (working message, enqueue). Acks first: a burst of deliveries
 * is read, claimed and acked while its follow-ups wait, so an ack never queues behind the Web API
 * posts, enqueues and database reads of the events before it, which share its event loop and pool;
 * the follow-ups run once the burst is acked (a steady stream defers each by at most `MAX_DEFER_MS`).
 * One thread's tasks run in the order they were recorded, so two quick messages are queued in arrival
 * order. In process only: across receivers, the worker keeps a thread's turns in message order.
 */
export function createFollowUpLane({
  concurrency,
  maxDeferMs = MAX_DEFER_MS,
}: {
  concurrency: number;
  maxDeferMs?: number;
}): FollowUpLane {
  const limit = pLimit(concurrency);
  const tails = new Map<string, Promise<void>>();
  let claiming = 0;
  let lastClaimAt = 0;
  let held: Array<{ since: number; go: () => void }> = [];
  let checking = false;

  function check(): void {
    checking = false;
    if (held.length === 0) return;
    const now = performance.now();
    const quiet = claiming === 0 && now - lastClaimAt >= QUIET_MS;
    if (quiet || now - held[0]!.since >= maxDeferMs) {
      const go = held;
      held = [];
      for (const h of go) h.go();
      return;
    }
    checking = true;
    setTimeout(check, QUIET_MS);
  }

  const quiet = () =>
    new Promise<void>((go) => {
      held.push({ since: performance.now(), go });
      if (!checking) {
        checking = true;
        setTimeout(check, 0);
      }
    });

  return {
    run(key, task) {
      const previous = tails.get(key) ?? Promise.resolve();
      const run = previous.then(quiet).then(() => limit(task));
      const tail = run.catch(() => undefined);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return run;
    },
    quiet,
    async first(work) {
      claiming++;
      lastClaimAt = performance.now();
      try {
        return await work();
      } finally {
        claiming--;
      }
    },
  };
}
