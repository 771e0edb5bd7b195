/**
 * `node bench/cpu-per-turn.ts [--turns N] [--rounds R] [--long] [--against DIR]`: Hermes' own
 * CPU per end-to-end turn (bench/e2e-turn.ts: signed event in → answer posted, Postgres + Redis, the
 * model answering at once), measured from /proc on the Hermes process. `--long`: the turns are one
 * thread whose history grows past the context budget (bench/memory.ts), and the last 20 count. With `--against DIR` (another
 * checkout with its node_modules, e.g. `git worktree add /tmp/before <commit>`), each round runs both,
 * alternating, on the same database, Redis and emulator, and the medians are compared: on a busy
 * machine only a comparison within one run means anything.
 */
import { resolve } from "node:path";
import { measureE2E } from "./e2e-turn.ts";
import { createBenchStack } from "./lib/bench-stack.ts";
import { APP_DIR } from "./lib/hermes-processes.ts";
import { fmt } from "./lib/stats.ts";
import { measureLongThread } from "./memory.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const TURNS = Number(arg("--turns") ?? 200);
const ROUNDS = Number(arg("--rounds") ?? 3);
const against = arg("--against");
const long = process.argv.includes("--long");
const dirs = against ? [resolve(against), APP_DIR] : [APP_DIR];

const results = new Map<string, { cpu: number[]; system: number[]; p50: number[] }>(
  dirs.map((d) => [d, { cpu: [], system: [], p50: [] }]),
);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const stack = await createBenchStack();
try {
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate who goes first: a database that grows round by round must not favour either.
    for (const dir of round % 2 ? dirs : [...dirs].reverse()) {
      const hermes = await stack.start("all", { appDir: dir });
      try {
        const r = long
          ? lastWindow(await measureLongThread(stack, hermes, { turns: TURNS, windowSize: 20 }))
          : await measureE2E(stack, hermes, { turns: TURNS, warmup: 30, modelDelayMs: 0 });
        const into = results.get(dir)!;
        into.cpu.push(r.cpuMsPerTurn);
        into.system.push(r.systemMsPerTurn);
        into.p50.push(r.totalMs.p50);
        console.log(
          `round ${round} ${dir}: CPU ${fmt(r.cpuMsPerTurn)} ms/turn (system ${fmt(r.systemMsPerTurn)}), e2e p50 ${fmt(r.totalMs.p50)} ms`,
        );
      } finally {
        await stack.stopProcess(hermes);
      }
    }
  }
} finally {
  await stack.close();
}
for (const [dir, r] of results) {
  console.log(
    `median of ${r.cpu.length}: ${dir}: CPU ${fmt(median(r.cpu))} ms/turn (system ${fmt(median(r.system))}), e2e p50 ${fmt(median(r.p50))} ms`,
  );
}

/** The long thread's last window, shaped like an end-to-end result (system time is not split there). */
function lastWindow(r: Awaited<ReturnType<typeof measureLongThread>>) {
  const w = r.windows.at(-1)!;
  return { cpuMsPerTurn: w.cpuMsPerTurn, systemMsPerTurn: Number.NaN, totalMs: { p50: w.e2eP50Ms } };
}
