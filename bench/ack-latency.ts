/**
 * `node bench/ack-latency.ts [-- --sizes 50,100,200] [--roles all|split]`: how long Slack waits
 * for Hermes' HTTP 200 when a burst of signed `app_mention` events (each a thread of its own) arrives
 * at once. One Hermes process (HTTP receiver, Postgres, Redis, scripted model at 50 ms per call), or
 * with `--roles split` a receiver-only process beside a worker process. For each burst size it
 * prints p50/p99/max of the acks, then waits for every thread's answer before the next burst (the
 * answers' turn work runs during the burst, as it would in production). Prints figures, asserts
 * nothing: the behaviour (acked once recorded, nothing lost) is pinned by test/performance/ack-path.
 */

import { randomUUID } from "node:crypto";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { appMentionEvent, eventCallback } from "../src/sandbox/event-payloads.ts";
import { postAsUser } from "../src/sandbox/post-as-user.ts";
import type { SlackApiEmulator } from "../src/sandbox/slack-api-server.ts";
import { signSlackRequest } from "../src/sandbox/slack-signature.ts";
import {
  type HermesProcess,
  productionEnv,
  startHermesProcess,
  tempDir,
} from "../test/helpers/hermes-process.ts";
import { createTestDatabase } from "../test/helpers/pg.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl } from "../test/helpers/redis.ts";
import { answer, ScriptedModelServer } from "../test/helpers/scripted-model.ts";
import { startSlackEmulator } from "../test/helpers/slack.ts";

const SIGNING_SECRET = "ack-bench-secret";
const CHANNEL = "C0OPS";
const MODEL_DELAY_MS = 50;
/** Only bounds a hang. */
const ANSWER_CEILING_MS = 600_000;

export interface AckFigures {
  events: number;
  p50: number;
  p99: number;
  max: number;
  /** Non-200 answers. */
  failed: number;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

/**
 * Fires `n` signed mentions at once over plain `node:http` (one socket each, as Slack's deliveries
 * come); bodies and signatures are made before the clock starts, so the figure is the delivery alone.
 */
async function burst(url: string, emulator: SlackApiEmulator, n: number, label: string) {
  const { workspace } = emulator;
  const app = {
    teamId: workspace.team.id,
    apiAppId: workspace.bot.appId,
    botUserId: workspace.bot.userId,
    verificationToken: "bench",
  };
  const requests = Array.from({ length: n }, (_, i) => {
    const m = postAsUser(workspace, { channel: CHANNEL, user: "U0USER1", text: `<@U0HERMES> ${label} ${i}` });
    const event = appMentionEvent({
      user: "U0USER1",
      channel: CHANNEL,
      text: m.text,
      ts: m.ts,
      team: app.teamId,
    });
    const body = JSON.stringify(
      eventCallback(app, event, {
        eventId: `Ev${randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase()}`,
        eventTime: Math.floor(Date.now() / 1000),
      }),
    );
    const headers = {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      ...signSlackRequest({ signingSecret: SIGNING_SECRET, body }),
    };
    return { body, headers, ts: m.ts };
  });
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const latencies: number[] = [];
  let failed = 0;
  await Promise.all(
    requests.map(
      (r) =>
        new Promise<void>((resolve, reject) => {
          const t0 = performance.now();
          const req = request(url, { method: "POST", headers: r.headers, agent }, (res) => {
            res.resume();
            res.on("end", () => {
              latencies.push(performance.now() - t0);
              if (res.statusCode !== 200) failed++;
              resolve();
            });
          });
          req.on("error", reject);
          req.end(r.body);
        }),
    ),
  );
  agent.destroy();
  return { latencies, failed, threads: requests.map((r) => r.ts) };
}

function figuresOf(n: number, latencies: number[], failed: number): AckFigures {
  const sorted = [...latencies].sort((a, c) => a - c);
  return {
    events: n,
    p50: Math.round(percentile(sorted, 0.5)),
    p99: Math.round(percentile(sorted, 0.99)),
    max: Math.round(sorted.at(-1) ?? Number.NaN),
    failed,
  };
}

function describe(label: string, f: AckFigures): string {
  return `${label} ${f.events} events: p50 ${f.p50} ms, p99 ${f.p99} ms, max ${f.max} ms, non-200 ${f.failed}`;
}

/**
 * The same bursts against a server that answers 200 at once: what this client, loopback and the
 * machine's current load cost alone, to read the figures against.
 */
export async function measureFloor(sizes: number[], log: (line: string) => void): Promise<AckFigures[]> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const emulator = await startSlackEmulator();
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
    await burst(url, emulator, 5, "warm-up");
    const figures: AckFigures[] = [];
    for (const n of sizes) {
      const b = await burst(url, emulator, n, `floor ${n}`);
      figures.push(figuresOf(n, b.latencies, b.failed));
      log(describe("floor", figures.at(-1)!));
    }
    return figures;
  } finally {
    server.closeAllConnections();
    server.close();
    await emulator.stop();
  }
}

export async function measureAckLatency(options: {
  sizes: number[];
  roles: "all" | "split";
  log?: (line: string) => void;
  /** Extra environment for the Hermes processes (e.g. NODE_OPTIONS=--cpu-prof). */
  env?: Record<string, string>;
}): Promise<AckFigures[]> {
  const log = options.log ?? (() => undefined);
  const dir = tempDir("ack-bench");
  const db = await createTestDatabase("hermes_bench");
  const emulator = await startSlackEmulator();
  const model = new ScriptedModelServer();
  model.record = false;
  model.fallback = () => ({ ...(answer("Done.") as object), delayMs: MODEL_DELAY_MS }) as never;
  await model.start();
  const redisPrefix = `ackb${Math.random().toString(36).slice(2, 10)}`;
  const env = productionEnv({
    slackApiUrl: emulator.url,
    signingSecret: SIGNING_SECRET,
    databaseUrl: db.url,
    redisUrl: testRedisUrl,
    redisPrefix,
    dataDir: dir.path,
    modelBaseUrl: model.baseURL,
    extra: { HERMES_TURN_TIMEOUT_SECONDS: "600", ...options.env },
  });
  const processes: HermesProcess[] = [];
  try {
    const receiver = await startHermesProcess(env, {
      args: options.roles === "split" ? ["--receiver"] : [],
    });
    processes.push(receiver);
    if (options.roles === "split") processes.push(await startHermesProcess(env, { args: ["--worker"] }));
    const url = `${receiver.origin}/slack/events`;
    // Answers are seen as they are posted or edited (the working message becomes the answer).
    const answeredThreads = new Set<string>();
    emulator.workspace.subscribe((change) => {
      if (change.type !== "message_posted" && change.type !== "message_updated") return;
      const m = change.message;
      if (m.user === "U0HERMES" && m.text === "Done." && m.thread_ts) answeredThreads.add(m.thread_ts);
    });
    const answered = (ts: string) => answeredThreads.has(ts);
    // Warm-up: the first event pays for lazy connections and JIT.
    const warm = await burst(url, emulator, 5, "warm-up");
    await until(() => warm.threads.every(answered), "warm-up answers");

    const figures: AckFigures[] = [];
    for (const n of options.sizes) {
      const b = await burst(url, emulator, n, `burst ${n}`);
      figures.push(figuresOf(n, b.latencies, b.failed));
      log(describe(`ack (${options.roles})`, figures.at(-1)!));
      await until(() => b.threads.every(answered), `answers of the ${n}-event burst`);
    }
    return figures;
  } finally {
    for (const p of processes.reverse()) await p.stop().catch(() => p.kill9());
    await Promise.all([emulator.stop(), model.stop()]);
    await db.drop();
    const redis = connectTestRedis();
    await deleteKeysWithPrefix(redis, `${redisPrefix}:`).finally(() => redis.disconnect());
    dir.remove();
  }
}

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + ANSWER_CEILING_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ANSWER_CEILING_MS} ms`);
    await sleep(100);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = (arg("sizes") ?? "50,100,200").split(",").map(Number);
  const roles = arg("roles") === "split" ? "split" : "all";
  // e.g. `--import ./profile-hook.mjs`: flags like --cpu-prof are not allowed in NODE_OPTIONS.
  const nodeOptions = arg("node-options");
  const floor = await measureFloor(sizes, console.log);
  const figures = await measureAckLatency({
    sizes,
    roles,
    log: console.log,
    ...(nodeOptions
      ? { env: { NODE_OPTIONS: nodeOptions, PROFILE_DIR: process.env.PROFILE_DIR ?? "." } }
      : {}),
  });
  const line = (label: string, fs: AckFigures[]) =>
    fs.map((f) => `${label}${f.events}_p50_ms=${f.p50} ${label}${f.events}_p99_ms=${f.p99}`).join(" ");
  console.log(
    `ack roles=${roles} ${line("floor", floor)} ${line("ack", figures)} ack_p99_ms=${figures.at(-1)?.p99}`,
  );
}
