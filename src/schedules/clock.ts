import { setTimeout as sleep } from "node:timers/promises";

/** The time a scheduler reads its slots by and waits on. */
export interface Clock {
  now(): Date;
  /** Resolves once `now()` has reached `at`, or as soon as `signal` is aborted. Never rejects. */
  waitUntil(at: Date, signal: AbortSignal): Promise<void>;
}

/** A wait re-reads the wall clock at least this often, so a changed system clock or a resumed machine is seen. */
const MAX_SLEEP_MS = 30_000;

/** The system clock: `Date` and timers. */
export const systemClock: Clock = {
  now: () => new Date(),
  async waitUntil(at, signal) {
    for (;;) {
      const ms = at.getTime() - Date.now();
      if (ms <= 0 || signal.aborted) return;
      await sleep(Math.min(ms, MAX_SLEEP_MS), undefined, { signal }).catch(() => undefined);
    }
  },
};
