/**
 * `node bench/turn-timeline.ts [--turns N]`: where a turn's wall time goes, round trip by round trip.
 * Runs the end-to-end turn of bench/e2e-turn.ts (signed `app_mention` in → answer posted; one tool
 * call, the scripted model at 50 ms per call) against one `npm start` process that stamps its own
 * round trips (bench/lib/round-trip-stamps.ts: Postgres statements, Redis commands, outgoing HTTP
 * and the requests it serves). Turns go one at a time, 50 ms apart, so one turn's last writes do not
 * overlap the next one's start. Prints the median and the slowest turn as timelines (ms from the
 * event sent: start, +duration, kind, what) and, over all turns, the median round trips a turn makes
 * and the median time of its three stretches: event → first model request, between the model
 * requests, last model answer → answer posted. Asserts nothing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { monotonicUs } from "./e2e-turn.ts";
import { createBenchStack, within } from "./lib/bench-stack.ts";
import { fmt, percentile } from "./lib/stats.ts";
import { tempDir } from "./lib/temp-dir.ts";

const i = process.argv.indexOf("--turns");
const TURNS = i > 0 ? Number(process.argv[i + 1]) : 60;
const WARMUP = 100;
const MODEL_MS = 50;

interface Stamp {
  from: number;
  to: number;
  kind: string;
  what: string;
}
interface Turn {
  from: number;
  to: number;
  ms: number;
}

const median = (xs: number[]) => percentile(xs, 0.5);
const isModel = (s: Stamp) => s.kind === "http" && s.what.includes("/chat/completions");
const isAnswer = (s: Stamp) => s.kind === "http" && /chat\.(update|postMessage)/.test(s.what);

function stretches(stamps: Stamp[], turn: Turn) {
  const models = stamps.filter(isModel);
  const first = models[0];
  const last = models.at(-1);
  const answer = stamps.filter((s) => isAnswer(s) && last && s.from >= last.to).at(-1);
  if (!first || !last || !answer) return undefined;
  return {
    toModel: (first.from - turn.from) / 1000,
    between: models.length > 1 ? (last.from - models[0]!.to) / 1000 : 0,
    after: (answer.to - last.to) / 1000,
  };
}

function show(label: string, turn: Turn, stamps: Stamp[]) {
  console.log(`\n${label}: ${fmt(turn.ms)} ms, ${stamps.length} round trips`);
  for (const s of stamps)
    console.log(
      `${fmt((s.from - turn.from) / 1000, 2).padStart(8)} +${fmt((s.to - s.from) / 1000, 2).padStart(6)}  ${s.kind.padEnd(6)} ${s.what}`,
    );
}

const dir = tempDir("timeline");
const file = join(dir.path, "round-trips.log");
const stack = await createBenchStack();
try {
  const preload = fileURLToPath(new URL("./lib/round-trip-stamps.ts", import.meta.url));
  const hermes = await stack.start("all", {
    env: { HERMES_ROUND_TRIP_FILE: file },
    nodeArgs: ["--import", preload],
  });
  const driver = stack.driver(hermes);
  stack.state.modelDelayMs = MODEL_MS;
  const one = async () => {
    const sent = await driver.send("tool");
    return within(60_000, `answer to ${sent.token}`, sent.done);
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
  for (let n = 0; n < WARMUP; n++) await one();
  const turns: Turn[] = [];
  for (let n = 0; n < TURNS; n++) {
    await pause();
    const from = monotonicUs();
    const ms = await one();
    turns.push({ from, to: monotonicUs(), ms });
  }
  await new Promise((resolve) => setTimeout(resolve, 350)); // the last turn's writes; the stamps' file is written every 200 ms
  const all: Stamp[] = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const [from, to, kind, ...what] = line.split(" ");
      return { from: Number(from), to: Number(to), kind: kind!, what: what.join(" ") };
    })
    .sort((a, b) => a.from - b.from);
  const stampsOf = (t: Turn) => all.filter((s) => s.from >= t.from && s.from <= t.to + 20_000);
  const byMs = [...turns].sort((a, b) => a.ms - b.ms);
  const middle = byMs[Math.floor(byMs.length / 2)]!;
  show("median turn", middle, stampsOf(middle));
  show("slowest turn", byMs.at(-1)!, stampsOf(byMs.at(-1)!));
  const per = turns.map((t) => {
    const stamps = stampsOf(t);
    return { stamps, parts: stretches(stamps, t) };
  });
  const count = (kind: string) => median(per.map((p) => p.stamps.filter((s) => s.kind === kind).length));
  const parts = per.flatMap((p) => (p.parts ? [p.parts] : []));
  console.log(
    `\n${turns.length} turns (model ${MODEL_MS} ms a call): e2e p50 ${fmt(median(turns.map((t) => t.ms)))} ms; ` +
      `round trips a turn (median): Postgres ${count("pg")}, Redis ${count("redis")}, HTTP out ${count("http")}, served ${count("serve")}`,
  );
  console.log(
    `median stretches (ms): event → first model request ${fmt(median(parts.map((p) => p.toModel)))}, ` +
      `between the model requests (after the first answer) ${fmt(median(parts.map((p) => p.between)))}, ` +
      `last model answer → answer posted ${fmt(median(parts.map((p) => p.after)))}`,
  );
} finally {
  await stack.close();
  dir.remove();
}
