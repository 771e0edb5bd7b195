/**
 * `node bench/runtime-ab.ts --against DIR [--rounds N]`: benchmark 1's Hermes (trace on and off) from
 * another checkout (DIR, with its node_modules, e.g. `git worktree add /tmp/before <commit>` and a
 * symlink to this one's node_modules) against this one, and the bare SDK loop, in ONE process: rounds
 * of 25 turns each, interleaved, so a noisy machine's drift hits them alike. Prints each contender's
 * median and mean ms per turn, and per turn over the bare loop. A change of a few tens of µs a turn
 * only shows here: separate runs of `npm run bench:runtime` differ by more than that.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { mean, percentile } from "./lib/stats.ts";
import { buildContenders, startWeatherModel } from "./runtime-overhead.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const against = arg("--against");
if (!against) throw new Error("usage: node bench/runtime-ab.ts --against DIR [--rounds N]");
const ROUNDS = Number(arg("--rounds") ?? 150);
const ROUND = 25;

const server = await startWeatherModel();
try {
  const other = pathToFileURL(resolve(against, "bench/runtime-overhead.ts")).href;
  const before = (await import(other)) as { buildContenders?: typeof buildContenders };
  if (typeof before.buildContenders !== "function")
    throw new Error(
      `${against}: bench/runtime-overhead.ts does not export buildContenders (add the export there)`,
    );
  const a = await before.buildContenders(server.baseURL);
  const b = await buildContenders(server.baseURL);
  const contenders: Record<string, () => Promise<string>> = {
    bare: b.bare,
    "before hermes": a.hermes,
    "after hermes": b.hermes,
    "before no trace": a["hermes-no-trace"],
    "after no trace": b["hermes-no-trace"],
  };
  const perRound = Object.fromEntries(Object.keys(contenders).map((k) => [k, [] as number[]]));
  for (const turn of Object.values(contenders)) for (let i = 0; i < 200; i++) await turn();
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, turn] of Object.entries(contenders)) {
      const t = performance.now();
      for (let i = 0; i < ROUND; i++) await turn();
      perRound[name]!.push((performance.now() - t) / ROUND);
    }
  }
  const bareMedian = percentile(perRound.bare!, 0.5);
  const bareMean = mean(perRound.bare!);
  console.log(`${ROUNDS} rounds of ${ROUND} turns each, interleaved (before: ${resolve(against)})`);
  for (const [name, xs] of Object.entries(perRound)) {
    const med = percentile(xs, 0.5);
    const avg = mean(xs);
    console.log(
      `${name.padEnd(16)} median ${med.toFixed(3)} ms  mean ${avg.toFixed(3)} ms  over bare: median +${((med - bareMedian) * 1000).toFixed(0)} µs, mean +${((avg - bareMean) * 1000).toFixed(0)} µs`,
    );
  }
} finally {
  await server.stop();
}
