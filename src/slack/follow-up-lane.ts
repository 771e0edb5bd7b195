import pLimit from "p-limit";

export interface FollowUpLane {
  /**
   * Runs `task` after the tasks handed in before it under the same `key` (a thread), once no ack is
   * waiting (or it has waited `maxDeferMs`), at most `perGroup` tasks of one `group` (a channel) and
   * `concurrency` tasks of all groups at once. Resolves or rejects with the task.
   */
  run(key: string, task: () => Promise<void>, group?: string): Promise<void>;
  /** Runs `work`, an event's claim that its ack waits for, ahead of every follow-up task. */
  first<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves once no claim is in flight or just started (or after `maxDeferMs`): when follow-ups may go. */
  quiet(): Promise<void>;
  /**
   * A delivery came in (HTTP): until the returned function is called (it was answered), follow-ups
   * wait. Once deliveries are counted, no pending answer and no claim in flight is quiet at once:
   * a lone event's follow-ups do not wait out the burst window.
   */
  arriving(): () => void;
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
  perGroup = concurrency,
  maxDeferMs = MAX_DEFER_MS,
}: {
  concurrency: number;
  /**
   * Tasks of one group (channel) at once. A burst in one channel waits on that channel's Slack rate
   * budget; capping it per channel keeps its queued tasks from taking every slot while another
   * channel's follow-ups wait behind them.
   */
  perGroup?: number;
  maxDeferMs?: number;
}): FollowUpLane {
  const limit = pLimit(concurrency);
  const groups = new Map<string, ReturnType<typeof pLimit>>();
  const inGroup = (group: string | undefined, task: () => Promise<void>): Promise<void> => {
    if (group === undefined) return limit(task);
    let g = groups.get(group);
    if (!g) {
      g = pLimit(perGroup);
      groups.set(group, g);
    }
    const mine = g;
    return mine(() => limit(task)).finally(() => {
      if (mine.activeCount === 0 && mine.pendingCount === 0 && groups.get(group) === mine)
        groups.delete(group);
    });
  };
  const tails = new Map<string, Promise<void>>();
  let claiming = 0;
  let lastClaimAt = 0;
  let held: Array<{ since: number; go: () => void }> = [];
  /** The next check: on the next turn of the event loop (`soon`), or after a quiet window (`timer`). */
  let soon = false;
  let timer: NodeJS.Timeout | undefined;
  /** Deliveries not yet answered; undefined while nobody counts them (Socket Mode). */
  let unanswered: number | undefined;

  // On the next turn of the event loop (deliveries read with this one are counted by then), not on a
  // timer: a 0 ms timeout waits ~1 ms, which every turn's working message used to wait for.
  function checkSoon(): void {
    if (soon) return;
    soon = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
    setImmediate(() => {
      soon = false;
      check();
    });
  }

  function check(): void {
    if (held.length === 0) return;
    const now = performance.now();
    const quiet =
      claiming === 0 && (unanswered === 0 || (unanswered === undefined && now - lastClaimAt >= QUIET_MS));
    if (quiet || now - held[0]!.since >= maxDeferMs) {
      const go = held;
      held = [];
      for (const h of go) h.go();
      return;
    }
    timer ??= setTimeout(() => {
      timer = undefined;
      check();
    }, QUIET_MS);
  }

  const quiet = () =>
    new Promise<void>((go) => {
      held.push({ since: performance.now(), go });
      checkSoon();
    });

  return {
    run(key, task, group) {
      const previous = tails.get(key) ?? Promise.resolve();
      const run = previous.then(quiet).then(() => inGroup(group, task));
      const tail = run.catch(() => undefined);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return run;
    },
    quiet,
    arriving() {
      unanswered = (unanswered ?? 0) + 1;
      let once = false;
      return () => {
        if (once) return;
        once = true;
        unanswered = Math.max(0, unanswered! - 1);
        // The last answer went out: held follow-ups go now, not when a quiet-window timer fires.
        if (unanswered === 0 && held.length > 0) checkSoon();
      };
    },
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
