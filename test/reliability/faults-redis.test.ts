import { type ChildProcess, spawn } from "node:child_process";
import { Redis } from "ioredis";
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { TEST_AUDIT_KEY, tempDir } from "../helpers/hermes-process.ts";
import { freePort } from "../helpers/npm-start.ts";
import { testPool } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, type ScriptStep, toolCalls } from "../helpers/scripted-model.ts";
import { type EffectsServer, startEffectsServer } from "./effects-server.ts";

const CHANNEL = "C0OPS";
type Block = { type: string; elements?: Array<{ value?: string }> };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A Redis of this test's own (never the machine's: other tests use it), on a free port with its own
 * folder and no persistence, so a `kill -9` by pid loses everything it held, as a crashed cache does.
 * `start()` brings up a new, empty one on the same port.
 */
async function ownRedis(dir: string) {
  const port = await freePort();
  let child: ChildProcess | undefined;
  // Every server started, so that none outlives the test: a start while one still runs spawns a
  // second one that fails to bind, and `child` then names that one, not the one serving the port.
  const started = new Set<ChildProcess>();
  const url = `redis://127.0.0.1:${port}`;
  const start = async () => {
    const c = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    child = c;
    started.add(c);
    c.once("exit", () => started.delete(c));
    // Never outlive the test worker (a crash or timeout that skipped afterAll).
    const killOnExit = () => c.kill("SIGKILL");
    process.once("exit", killOnExit);
    c.once("exit", () => process.off("exit", killOnExit));
    await waitFor(
      async () => {
        const probe = new Redis(url, {
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        probe.on("error", () => undefined);
        try {
          await probe.connect();
          return (await probe.ping()) === "PONG";
        } finally {
          probe.disconnect();
        }
      },
      30_000,
      "redis-server up",
    );
  };
  const kill9 = async () => {
    const live = [...started].filter((c) => c.exitCode === null && c.signalCode === null);
    await Promise.all(
      live.map((c) => {
        const exited = new Promise((r) => c.once("exit", r));
        if (c.pid) process.kill(c.pid, "SIGKILL");
        return exited;
      }),
    );
  };
  await start();
  return { url, port, start, kill9, pid: () => child?.pid };
}

/**
 * Redis (sessions, turn locks, BullMQ) killed or flushed under a running Hermes in production mode.
 * Durable state lives in Postgres, so: a refused request is told so clearly, a side-effecting call
 * never runs twice, approvals decided while Redis is away still resume once it is back, no audit row
 * is lost (the chain verifies, every request has an outcome), and `/healthz` says degraded meanwhile.
 */
describe("Redis killed or flushed under a running Hermes", () => {
  const model = new ScriptedModelServer();
  let dir: ReturnType<typeof tempDir>;
  let redis: Awaited<ReturnType<typeof ownRedis>>;
  let effects: EffectsServer;
  let t: TestHermes;
  let direct: pg.Pool;
  const hermesEnv = () => ({
    REDIS_URL: redis.url,
    HERMES_AUDIT_KEY: TEST_AUDIT_KEY,
    HERMES_HTTP_TOOLS: effects.writeToolsFile(dir.path),
    HERMES_TURN_TIMEOUT_SECONDS: "60",
  });

  beforeAll(async () => {
    dir = tempDir("redis-faults");
    redis = await ownRedis(dir.path);
    effects = await startEffectsServer();
    await model.start();
    t = await startTestHermes({ model, redis: true, env: hermesEnv() });
    direct = testPool({ connectionString: t.db.url, max: 2 });
    direct.on("error", () => undefined);
  }, 120_000);
  afterAll(async () => {
    await redis?.start().catch(() => undefined);
    await direct?.end();
    await t?.stop();
    await redis?.kill9();
    await effects?.stop();
    await model.stop();
    dir?.remove();
  });
  beforeEach(async () => {
    // Each case starts with Redis up and Hermes healthy again (recovery is part of what is shown).
    if (!(await healthy())) await redis.start();
    await waitFor(healthy, 60_000, "healthy");
    model.reset();
    t.emulator.clearCalls();
  }, 90_000);

  const health = async () => {
    const r = await fetch(`http://127.0.0.1:${t.hermes.port}/healthz`);
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  const healthy = async () => (await health().catch(() => ({ status: 0 }))).status === 200;
  const replies = (ts: string) =>
    (t.thread(CHANNEL, ts) ?? []).filter(
      (m) => m.user === "U0HERMES" && m.ts !== ts && !m.text.startsWith(":hourglass_flowing_sand:"),
    );
  const cardOf = (ts: string) =>
    replies(ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions"));
  const approvalIdOf = (card: SandboxMessage) =>
    (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value!;
  const mention = (text: string, threadTs?: string) =>
    t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: `<@U0HERMES> ${text}`,
      ...(threadTs ? { threadTs } : {}),
    });

  /** `tool.requested` rows with no later row for the same call. */
  async function unfinishedCalls(): Promise<string[]> {
    const r = await direct.query<{ tool_call_id: string }>(
      `select r.tool_call_id from audit_log r where r.action = 'tool.requested'
          and not exists (select 1 from audit_log o where o.tool_call_id = r.tool_call_id and o.id > r.id)`,
    );
    return r.rows.map((x) => x.tool_call_id);
  }

  it("killed while idle: /healthz 503 ok:false, a new message gets a clear refusal, and the bot answers once Redis is back", async () => {
    await redis.kill9();
    const degraded = await waitFor(async () => {
      const h = await health();
      return h.status === 503 ? h : undefined;
    }, 30_000);
    expect(degraded.body).toMatchObject({ ok: false, db: "postgres:ok" });
    expect(["down", "timeout"]).toContain(degraded.body.redis);

    const d = await mention("anyone there?");
    expect(d.status).toBe(200);
    const refusal = await waitFor(() => replies(d.message!.ts)[0], 60_000, "a refusal");
    expect(refusal.text).toContain(":warning:");
    expect(refusal.text).toMatch(/unavailable/);
    expect(refusal.text).not.toMatch(/\n\s+at \S+|ECONNREFUSED|ioredis/);
    expect(model.requests).toHaveLength(0);

    await redis.start();
    await waitFor(healthy, 60_000, "healthy after Redis is back");
    model.enqueue(answer("Here again."));
    const d2 = await mention("and now?");
    await waitFor(() => replies(d2.message!.ts).find((m) => m.text === "Here again."), 60_000, "answer");
  }, 180_000);

  it("killed mid-turn: the side-effecting call runs at most once, the user is told, and every audited request has an outcome", async () => {
    const before = effects.effects.length;
    let killed = false;
    const killThenCall: ScriptStep = () => {
      void redis.kill9().then(() => {
        killed = true;
      });
      return {
        ...(toolCalls([{ name: "notify_ops", args: { note: "redis died" } }]) as object),
        delayMs: 300,
      } as ScriptStep;
    };
    model.enqueue(killThenCall, answer("Paged ops."));
    const d = await mention("page ops about the cache");
    const ts = d.message!.ts;
    const reply = await waitFor(() => replies(ts)[0], 120_000, "a reply");
    expect(killed).toBe(true);
    console.log(
      `Redis killed mid-turn (effects: ${effects.effects.length - before}), the user read: ${replies(ts)
        .map((m) => m.text)
        .join(" | ")}`,
    );
    expect(reply.text).not.toMatch(/\n\s+at \S+|ECONNREFUSED|ioredis/);
    expect(effects.effects.length - before).toBeLessThanOrEqual(1);
    // The page went out: whatever the user reads must not say that nothing was done.
    if (effects.effects.length > before)
      for (const m of replies(ts)) expect(m.text).not.toContain("nothing was done");

    await redis.start();
    await waitFor(healthy, 60_000, "healthy after Redis is back");
    await sleep(1000);
    expect(effects.effects.length - before).toBeLessThanOrEqual(1);
    expect(await unfinishedCalls()).toEqual([]);
    expect((await t.hermes.services.storage.audit.verify()).ok).toBe(true);
  }, 180_000);

  it("flushed mid-turn (locks and queue gone): the turn finishes once, its call runs once", async () => {
    const before = effects.effects.length;
    const flusher = new Redis(redis.url);
    const flushThenCall: ScriptStep = () => {
      void flusher.flushall();
      return toolCalls([{ name: "notify_ops", args: { note: "cache flushed" } }]);
    };
    model.enqueue(flushThenCall, answer("Paged ops after the flush."));
    try {
      const d = await mention("page ops about the flush");
      const ts = d.message!.ts;
      await waitFor(() => replies(ts)[0], 120_000, "a reply");
      await sleep(1500);
      console.log(
        `Redis flushed mid-turn, the user read: ${replies(ts)
          .map((m) => m.text)
          .join(" | ")}`,
      );
      expect(replies(ts).map((m) => m.text)).toEqual(["Paged ops after the flush."]);
      expect(effects.effects.length - before).toBe(1);
      expect(model.requests).toHaveLength(2);
      const rows = (
        await t.hermes.services.storage.audit.query({ tool: "notify_ops", limit: 100 })
      ).rows.filter((r) => r.threadTs === ts);
      expect(rows.map((r) => r.action).sort()).toEqual(["tool.executed", "tool.requested"]);
      expect(await unfinishedCalls()).toEqual([]);
      expect((await t.hermes.services.storage.audit.verify()).ok).toBe(true);
    } finally {
      flusher.disconnect();
    }
  }, 180_000);

  /** A run waiting for approval of send_message in a new thread; returns its card and approval id. */
  async function pausedRun(text: string) {
    model.enqueue(toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text } }]));
    const d = await mention(`tell Wang Lei: ${text}`);
    const ts = d.message!.ts;
    const card = await waitFor(() => cardOf(ts), 60_000, "approval card");
    return { ts, card, approvalId: approvalIdOf(card) };
  }
  const sentToWangLei = (text: string) => t.ws.history("D0WANGLEI").filter((m) => m.text.includes(text));
  const clickApprove = (card: SandboxMessage, approvalId: string) =>
    t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalId,
      channel: CHANNEL,
      messageTs: card.ts,
    });

  it("killed while a run waits for approval: the click is recorded in Postgres, nothing runs meanwhile, and the run resumes once (at the next start)", async () => {
    const { ts, card, approvalId } = await pausedRun("redis-proof hello");
    await redis.kill9();
    await waitFor(async () => (await health()).status === 503, 30_000, "degraded");
    model.enqueue(answer("Told Wang Lei hello."));
    expect((await clickApprove(card, approvalId)).status).toBe(200);
    // The decision is durable: Postgres has it while Redis is down.
    await waitFor(
      async () => (await t.hermes.services.storage.approvals.get(approvalId))?.status === "approved",
      60_000,
      "the approval is recorded",
    );
    await sleep(3000);
    expect(sentToWangLei("redis-proof")).toHaveLength(0);

    await redis.start();
    await waitFor(healthy, 60_000, "healthy after Redis is back");
    await t.stopHermes();
    t = await startTestHermes({ model, reuse: t, env: hermesEnv() });
    await waitFor(
      () => replies(ts).find((m) => m.text === "Told Wang Lei hello."),
      120_000,
      "resumed answer",
    );
    expect(sentToWangLei("redis-proof")).toHaveLength(1);
    const rows = (
      await t.hermes.services.storage.audit.query({ tool: "send_message", limit: 100 })
    ).rows.filter((r) => r.threadTs === ts);
    expect(rows.filter((r) => r.action === "tool.executed")).toHaveLength(1);
    expect(await unfinishedCalls()).toEqual([]);
    expect((await t.hermes.services.storage.audit.verify()).ok).toBe(true);
  }, 240_000);

  // The click's decision is stored in Postgres, but queueing the resume fails while Redis is gone:
  // the clicker is told the decision is recorded, and the periodic sweep resumes the run once Redis
  // is back (no restart needed).
  it("killed while a run waits for approval: once Redis is back the run resumes without a restart, and the clicker was not told the decision was lost", async () => {
    const { ts, card, approvalId } = await pausedRun("no-restart hello");
    await redis.kill9();
    await waitFor(async () => (await health()).status === 503, 30_000, "degraded");
    model.enqueue(answer("Told Wang Lei, no restart needed."));
    const queueDown = () =>
      t.ws
        .ephemeralMessages(CHANNEL, "U0USER1")
        .filter((m) => m.text.includes("Your decision is recorded (approved). My queue is unavailable"));
    const toldBefore = queueDown().length; // the test before this one was told so too
    expect((await clickApprove(card, approvalId)).status).toBe(200);
    await waitFor(
      async () => (await t.hermes.services.storage.approvals.get(approvalId))?.status === "approved",
      60_000,
      "the approval is recorded",
    );
    // The outage lasts until the click's enqueue has failed (ioredis keeps a command in its offline
    // queue across up to three reconnect attempts before failing it): the clicker is told why.
    await waitFor(
      () => queueDown().length > toldBefore,
      60_000,
      "the clicker is told the queue is unavailable",
    );
    await redis.start();
    await waitFor(healthy, 60_000, "healthy after Redis is back");
    // Background sweeps run every 10 s: three of them are plenty.
    await waitFor(
      () => replies(ts).find((m) => m.text === "Told Wang Lei, no restart needed."),
      30_000,
      "resumed answer",
    );
    expect(sentToWangLei("no-restart")).toHaveLength(1);
    const told = t.ws.ephemeralMessages(CHANNEL, "U0USER1").map((m) => m.text);
    expect(told.filter((x) => x.includes("could not record your decision"))).toEqual([]);
  }, 180_000);
});
