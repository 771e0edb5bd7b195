import { threadCpuMs } from "../security/adversarial-strings.ts";

/** One turn of the event loop: its wall time and the CPU this thread burned in it (ms). */
export interface LoopTurn {
  ms: number;
  cpu: number;
}

/**
 * Every turn of the event loop while `work` runs: a 5 ms timer's ticks, the wall time and this
 * thread's CPU between two of them. A turn counts as held only when it was both slow and burned that
 * much CPU (`longest`): a busy machine delays the timer without our loop being held, and then the CPU
 * figure stays small. `cpuMs` is this thread's CPU over the whole of `work`.
 */
export async function meterLoopTurns<T>(work: () => Promise<T>) {
  const turns: LoopTurn[] = [];
  let lastWall = performance.now();
  let lastCpu = threadCpuMs();
  const cpu0 = lastCpu;
  const ticker = setInterval(() => {
    const wall = performance.now();
    const cpu = threadCpuMs();
    turns.push({ ms: wall - lastWall, cpu: cpu - lastCpu });
    lastWall = wall;
    lastCpu = cpu;
  }, 5);
  try {
    const result = await work();
    const cpuMs = threadCpuMs() - cpu0;
    return { result, turns, cpuMs, longest: Math.max(0, ...turns.map((t) => Math.min(t.ms, t.cpu))) };
  } finally {
    clearInterval(ticker);
  }
}

/** `/healthz` asked back to back until `stop()` (any number of calls), which gives every answer's status (0: no answer). */
export function probeHealthz(port: number): { stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let done = false;
  const prober = (async () => {
    while (!done) {
      statuses.push(
        await fetch(`http://127.0.0.1:${port}/healthz`).then(
          async (res) => {
            await res.arrayBuffer();
            return res.status;
          },
          () => 0,
        ),
      );
    }
  })();
  return {
    async stop() {
      done = true;
      await prober;
      return statuses;
    },
  };
}
