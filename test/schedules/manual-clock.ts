import type { Clock } from "../../src/schedules/clock.ts";

/** A clock that moves only when the test moves it; waits resolve as it passes their instant. */
export interface ManualClock extends Clock {
  set(at: Date | string): void;
  /** The instants waited for now (ISO strings, earliest first). */
  pending(): string[];
}

export function manualClock(start: Date | string): ManualClock {
  let now = new Date(start).getTime();
  const waits = new Set<{ at: number; done(): void }>();
  return {
    now: () => new Date(now),
    waitUntil(at, signal) {
      if (now >= at.getTime() || signal.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wait = {
          at: at.getTime(),
          done() {
            waits.delete(wait);
            signal.removeEventListener("abort", wait.done);
            resolve();
          },
        };
        waits.add(wait);
        signal.addEventListener("abort", wait.done, { once: true });
      });
    },
    set(at) {
      const next = new Date(at).getTime();
      if (next < now) throw new Error(`the manual clock only moves forward (${new Date(now).toISOString()})`);
      now = next;
      for (const wait of [...waits]) if (wait.at <= now) wait.done();
    },
    pending: () => [...waits].sort((a, b) => a.at - b.at).map((w) => new Date(w.at).toISOString()),
  };
}
