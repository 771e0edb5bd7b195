/**
 * `npm run bench:ack [-- --sizes 50,100,200] [--roles all|split] [--client raw|http]`: the ack benchmark of `npm run bench`
 * (section 3) on its own. Bursts of signed mentions, each a thread of its own, against one `npm start`
 * process, or with `--roles split` a `--receiver` process beside a `--worker`, on Postgres, Redis, the
 * Slack emulator and a scripted model at 50 ms per call. Prints each burst's ack p50/p99/max beside
 * the floor (the same bursts against a server that answers at once), then one line of figures.
 * `--client http` sends with `node:http`'s client, whose clocks also hold its own request building.
 * Asserts nothing: acked-once-recorded and nothing-lost are pinned by test/performance/ack-path.
 */
import { measureAckBursts } from "./ack-burst.ts";
import { measureFloor } from "./lib/ack-floor.ts";
import { createBenchStack } from "./lib/bench-stack.ts";
import { fmt } from "./lib/stats.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const sizes = (arg("sizes") ?? "50,100,200").split(",").map(Number);
const roles = arg("roles") === "split" ? "split" : "all";
const client = arg("client") === "http" ? "http" : "raw";

const floor = await measureFloor(sizes, console.log, client);
const stack = await createBenchStack();
try {
  const receiver = await stack.start(roles === "split" ? "receiver" : "all");
  if (roles === "split") await stack.start("worker");
  // Warm-up: the first events pay for lazy connections and JIT.
  await measureAckBursts(stack, receiver, { sizes: [5], modelDelayMs: 50, client });
  const bursts = await measureAckBursts(stack, receiver, { sizes, modelDelayMs: 50, client });
  for (const b of bursts)
    console.log(
      `ack (${roles}) ${b.size} events: p50 ${fmt(b.ackMs.p50)} ms, p99 ${fmt(b.ackMs.p99)} ms, ` +
        `max ${fmt(b.ackMs.max)} ms; all answered after ${fmt(b.allAnsweredMs / 1000, 1)} s`,
    );
  const line = (label: string, figures: Array<{ n: number; p50: number; p99: number }>) =>
    figures.map((f) => `${label}${f.n}_p50_ms=${fmt(f.p50)} ${label}${f.n}_p99_ms=${fmt(f.p99)}`).join(" ");
  console.log(
    `ack roles=${roles} client=${client} ${line(
      "floor",
      floor.map((f) => ({ n: f.events, p50: f.p50, p99: f.p99 })),
    )} ` +
      `${line(
        "ack",
        bursts.map((b) => ({ n: b.size, p50: b.ackMs.p50, p99: b.ackMs.p99 })),
      )} ` +
      `ack_p99_ms=${fmt(bursts.at(-1)?.ackMs.p99 ?? Number.NaN)}`,
  );
} finally {
  await stack.close();
}
