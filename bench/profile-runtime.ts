/**
 * `node bench/profile-runtime.ts [--contender hermes|hermes-no-trace|bare|openai-agents] [--turns N] [--top N] [--keep FILE]`:
 * where a contender of the runtime benchmark (bench/runtime-overhead.ts) spends its CPU per turn.
 * Runs it alone, after a warm-up, under V8's sampling profiler (node:inspector, 100 µs interval), and
 * sums self time over the measured turns by package, file and function. The scripted model server
 * runs in this process too, so its share shows as node:http and test/helpers.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { formatSelfTimes, summarizeCpuProfile } from "./lib/cpuprofile-summary.ts";
import { buildContenders, CONTENDERS, type Contender, startWeatherModel } from "./runtime-overhead.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const contender = (arg("--contender") ?? "hermes") as Contender;
if (!CONTENDERS.includes(contender)) throw new Error(`--contender is one of ${CONTENDERS.join(", ")}`);
const TURNS = Number(arg("--turns") ?? 3000);
const TOP = Number(arg("--top") ?? 30);
const keep = arg("--keep");

const server = await startWeatherModel();
const session = new Session();
try {
  const turn = (await buildContenders(server.baseURL))[contender];
  for (let i = 0; i < 300; i++) await turn();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  const cpu = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < TURNS; i++) await turn();
  const wallMs = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const { profile } = await session.post("Profiler.stop");
  const file = keep ? resolve(keep) : join(tmpdir(), `hermes-runtime-${process.pid}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const s = summarizeCpuProfile(file);
  console.log(
    `${contender}: ${TURNS} turns, ${(wallMs / TURNS).toFixed(3)} ms/turn wall, CPU ${((used.user + used.system) / 1000 / TURNS).toFixed(3)} ms/turn, sampled busy ${(s.busyMs / TURNS).toFixed(3)} ms/turn`,
  );
  console.log("\nself time by package / src folder:");
  console.log(formatSelfTimes(s.byPackage, TOP, TURNS).join("\n"));
  console.log("\ncharged to the nearest project or dependency frame:");
  console.log(formatSelfTimes(s.byCaller, TOP * 2, TURNS).join("\n"));
  console.log("\nby function:");
  console.log(formatSelfTimes(s.byFunction, TOP * 2, TURNS).join("\n"));
  if (keep) console.log(`\nprofile kept: ${file}`);
} finally {
  session.disconnect();
  await server.stop();
}
