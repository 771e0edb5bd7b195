/**
 * `node bench/profile-turn.ts [--turns N] [--top N] [--keep DIR]`: where Hermes' own CPU per turn
 * goes. Runs the end-to-end turn of bench/e2e-turn.ts (signed event in → answer posted; Postgres,
 * Redis, the Slack emulator and a scripted model over HTTP) against one Hermes process started with
 * `node --cpu-prof`, then sums the profile's self time over the measured turns only, by package, file
 * and function. `--keep DIR` keeps the .cpuprofile (open it in Chrome DevTools); by default it is removed.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { measureE2E } from "./e2e-turn.ts";
import { createBenchStack } from "./lib/bench-stack.ts";
import { formatSelfTimes, summarizeCpuProfile } from "./lib/cpuprofile-summary.ts";
import { fmt } from "./lib/stats.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const keepIndex = process.argv.indexOf("--keep");
const keep = keepIndex > 0 ? resolve(process.argv[keepIndex + 1]!) : undefined;
const TURNS = arg("--turns", 200);
const TOP = arg("--top", 25);

const dir = keep ?? mkdtempSync(join(tmpdir(), "hermes-prof-"));
mkdirSync(dir, { recursive: true });
const stack = await createBenchStack();
try {
  const hermes = await stack.start("all", { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
  const r = await measureE2E(stack, hermes, { turns: TURNS, warmup: 30, modelDelayMs: 0 });
  await stack.stopProcess(hermes); // SIGTERM: Hermes exits, and node writes the profile
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile") && f.includes(`.${hermes.pid}.0.`));
  if (!file) throw new Error(`no profile of pid ${hermes.pid} in ${dir}`);
  const s = summarizeCpuProfile(join(dir, file), { fromUs: r.windowUs.from, toUs: r.windowUs.to });
  console.log(
    `${TURNS} turns: CPU ${fmt(r.cpuMsPerTurn)} ms/turn (/proc; system ${fmt(r.systemMsPerTurn)}), sampled ${fmt(s.busyMs / TURNS, 2)} ms/turn busy on the main thread; ` +
      `e2e p50 ${fmt(r.totalMs.p50)} ms p99 ${fmt(r.totalMs.p99)} ms`,
  );
  console.log("\nself time by package / src folder:");
  console.log(formatSelfTimes(s.byPackage, TOP, TURNS).join("\n"));
  console.log("\nby file:");
  console.log(formatSelfTimes(s.byFile, TOP, TURNS).join("\n"));
  console.log(
    "\ncharged to the nearest project or dependency frame (natives and node internals to their caller):",
  );
  console.log(formatSelfTimes(s.byCaller, TOP * 2, TURNS).join("\n"));
  console.log("\nby function:");
  console.log(formatSelfTimes(s.byFunction, TOP * 2, TURNS).join("\n"));
  if (keep)
    console.log(
      `\nprofile kept: ${join(dir, file)} (turns between ${r.windowUs.from} and ${r.windowUs.to} µs)`,
    );
} finally {
  await stack.close();
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
