/**
 * `node bench/cpu-floor.ts [--turns N] [--rounds R]`: the CPU floor of a turn on this machine. A
 * process that only makes a turn's round trips (bench/lib/floor-turn-process.ts: 18 Postgres
 * statements, 11 Redis commands, two model calls and two Slack calls, with pg, ioredis and undici)
 * beside Hermes' own turn (bench/cpu-per-turn.ts's measure), same database, Redis, emulator and model,
 * alternating: what `cpu_ms_per_turn` can reach without fewer round trips or a faster runtime.
 */
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { fileURLToPath } from "node:url";
import { measureE2E } from "./e2e-turn.ts";
import { createBenchStack } from "./lib/bench-stack.ts";
import { cpuMs } from "./lib/proc-stats.ts";
import { fmt } from "./lib/stats.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const TURNS = Number(arg("--turns") ?? 200);
const ROUNDS = Number(arg("--rounds") ?? 3);
const SECRET = "floor-signing-secret";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function floorRound(stack: Awaited<ReturnType<typeof createBenchStack>>): Promise<number> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL("./lib/floor-turn-process.ts", import.meta.url))],
    {
      env: {
        ...process.env,
        DATABASE_URL: stack.db.url,
        REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
        MODEL_URL: stack.model.baseURL,
        SLACK_API_URL: stack.emulator.url,
        SIGNING_SECRET: SECRET,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        const m = /ready (\d+)/.exec(d.toString());
        if (m) resolve(Number(m[1]));
      });
      child.on("exit", (code) => reject(new Error(`floor process exited ${code}`)));
    });
    const one = async (i: number) => {
      const body = JSON.stringify({
        type: "event_callback",
        event: { type: "app_mention", channel: "C0OPS", ts: `${1_800_000_000 + i}.000100` },
      });
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = `v0=${createHmac("sha256", SECRET).update(`v0:${ts}:${body}`).digest("hex")}`;
      const res = await fetch(`http://127.0.0.1:${port}/turn`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-slack-request-timestamp": ts,
          "x-slack-signature": sig,
        },
        body,
      });
      if (res.status !== 200) throw new Error(`floor turn answered ${res.status}: ${await res.text()}`);
    };
    for (let i = 0; i < 30; i++) await one(i);
    const cpu0 = cpuMs(child.pid!);
    for (let i = 0; i < TURNS; i++) await one(100 + i);
    return (cpuMs(child.pid!) - cpu0) / TURNS;
  } finally {
    child.kill("SIGTERM");
  }
}

const stack = await createBenchStack();
const floor: number[] = [];
const hermes: number[] = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const f = await floorRound(stack);
    const proc = await stack.start("all");
    let h: number;
    try {
      h = (await measureE2E(stack, proc, { turns: TURNS, warmup: 30, modelDelayMs: 0 })).cpuMsPerTurn;
    } finally {
      await stack.stopProcess(proc);
    }
    floor.push(f);
    hermes.push(h);
    console.log(`round ${round}: floor ${fmt(f)} ms/turn, Hermes ${fmt(h)} ms/turn (${fmt(h / f)}×)`);
  }
} finally {
  await stack.close();
}
console.log(
  `median of ${ROUNDS}: floor ${fmt(median(floor))} ms/turn, Hermes ${fmt(median(hermes))} ms/turn, ratio ${fmt(median(hermes) / median(floor))}`,
);
