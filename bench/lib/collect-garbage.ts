import { PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Gc = (o: { type: "major" | "minor"; execution: "sync" }) => void;
let gc: Gc | undefined;

/**
 * A synchronous collection of this process's heap, now: `major` before a measurement (so one of the
 * benchmark process's own full collections, tens of ms on a heap that earlier benchmarks filled, is
 * not due in the middle of it), `minor` to charge a round its own young garbage.
 */
export function collectGarbage(type: "major" | "minor"): void {
  if (!gc) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as Gc;
  }
  gc({ type, execution: "sync" });
}

/** This process's garbage-collection pauses from now until `stop()`: how many, the longest, the sum. */
export function watchGcPauses(): {
  stop(): { pauses: number; over10: number; maxMs: number; totalMs: number };
} {
  const durations: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) durations.push(e.duration);
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop() {
      observer.disconnect();
      return {
        pauses: durations.length,
        over10: durations.filter((d) => d > 10).length,
        maxMs: durations.length ? Math.max(...durations) : 0,
        totalMs: durations.reduce((a, b) => a + b, 0),
      };
    },
  };
}
