import pg from "pg";
import { silentLogger } from "../../src/core/logger.ts";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { openDatabase } from "../../src/store/db.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { productionEnv, startHermesProcess, tempDir } from "../helpers/hermes-process.ts";
import { createTestDatabase } from "../helpers/pg.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl } from "../helpers/redis.ts";
import { answer, type RecordedRequest, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { startSlackEmulator } from "../helpers/slack.ts";

const SIGNING_SECRET = "load-signing-secret";
const CHANNEL = "C0OPS";
const MODEL_DELAY_MS = 50;

export interface LoadReport {
  threads: number;
  ackMs: { p50: number; p99: number; max: number };
  /** From the first delivery to the last answer. */
  totalMs: number;
  /** Threads whose final replies are not exactly their one answer. */
  wrongAnswers: string[];
  /** create_ticket calls per action, and calls that do not have exactly one requested + one executed. */
  audit: { requested: number; executed: number; other: number; badCalls: string[] };
  tickets: number;
  modelRequests: number;
  chainOk: boolean;
}

/**
 * `threads` people mention Hermes at once, each in a thread of their own: signed `app_mention` events
 * over real HTTP to one real Hermes process (Bolt's HTTP receiver, Postgres, Redis sessions/locks and
 * BullMQ), whose model (scripted, 50 ms per call) opens a ticket with one tool call and then answers.
 * Returns what was measured and what was wrong; the caller asserts.
 */
export async function runLoad({ threads }: { threads: number }): Promise<LoadReport> {
  const dir = tempDir("load");
  const db = await createTestDatabase();
  const emulator = await startSlackEmulator();
  const model = new ScriptedModelServer();
  model.record = false;
  const redisPrefix = `load${Math.random().toString(36).slice(2, 10)}`;
  let modelRequests = 0;
  model.fallback = (req: RecordedRequest) => {
    modelRequests++;
    const messages = req.body.messages;
    const user = messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
    const n = /load thread (\d+)/.exec(user)?.[1] ?? "?";
    const step = messages.some((m) => m.role === "tool")
      ? answer(`Opened the ticket for thread ${n}.`)
      : toolCalls([{ name: "create_ticket", args: { title: `Load ticket ${n}`, priority: "low" } }]);
    return { ...(step as object), delayMs: MODEL_DELAY_MS } as never;
  };
  await model.start();
  const hermes = await startHermesProcess(
    productionEnv({
      slackApiUrl: emulator.url,
      signingSecret: SIGNING_SECRET,
      databaseUrl: db.url,
      redisUrl: testRedisUrl,
      redisPrefix,
      dataDir: dir.path,
      modelBaseUrl: model.baseURL,
      extra: { HERMES_LOG_LEVEL: "error", HERMES_TURN_TIMEOUT_SECONDS: "600" },
    }),
  ).catch(async (err: unknown) => {
    await Promise.all([emulator.stop(), model.stop()]);
    await db.drop();
    dir.remove();
    throw err;
  });
  const handle = await openDatabase({
    databaseUrl: db.url,
    dataDir: "",
    logger: silentLogger(),
    maxConnections: 2,
  });
  try {
    const sender = createEventsSender({
      url: `${hermes.origin}/slack/events`,
      signingSecret: SIGNING_SECRET,
      slack: emulator,
    });
    const started = Date.now();
    const acks: number[] = [];
    const sent = await Promise.all(
      Array.from({ length: threads }, async (_, i) => {
        const t0 = performance.now();
        const d = await sender.appMention({
          user: "U0USER1",
          channel: CHANNEL,
          text: `<@U0HERMES> load thread ${i}`,
        });
        acks.push(performance.now() - t0);
        if (d.status !== 200) throw new Error(`delivery ${i} answered HTTP ${d.status}: ${d.body}`);
        return { i, ts: d.message!.ts };
      }),
    );
    const finalReplies = (ts: string) =>
      (emulator.workspace.replies(CHANNEL, ts) ?? [])
        .filter((m) => m.user === "U0HERMES" && m.ts !== ts && !m.text.startsWith(":hourglass_flowing_sand:"))
        .map((m) => m.text);
    // Bounds a hang only: a few minutes for every turn, on a busy machine.
    await waitFor(
      () => sent.every(({ ts }) => finalReplies(ts).length > 0),
      threads * 1500 + 120_000,
      `answers in all ${threads} threads`,
    );
    const totalMs = Date.now() - started;
    // Late duplicates would show up after the answers: give them a moment, then look.
    await new Promise((r) => setTimeout(r, 1000));
    const wrongAnswers = sent
      .filter(({ i, ts }) => {
        const replies = finalReplies(ts);
        return replies.length !== 1 || replies[0] !== `Opened the ticket for thread ${i}.`;
      })
      .map(({ i, ts }) => `thread ${i}: ${JSON.stringify(finalReplies(ts))}`);

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = (
        await client.query<{ tool_call_id: string; action: string; n: string }>(
          `select tool_call_id, action, count(*) as n from audit_log where tool = 'create_ticket'
            group by tool_call_id, action`,
        )
      ).rows;
      const perCall = new Map<string, Record<string, number>>();
      for (const r of rows) {
        const m = perCall.get(r.tool_call_id) ?? {};
        m[r.action] = Number(r.n);
        perCall.set(r.tool_call_id, m);
      }
      const sum = (action: string) =>
        rows.filter((r) => r.action === action).reduce((a, r) => a + Number(r.n), 0);
      const badCalls = [...perCall.entries()]
        .filter(
          ([, m]) => m["tool.requested"] !== 1 || m["tool.executed"] !== 1 || Object.keys(m).length !== 2,
        )
        .map(([id, m]) => `${id}: ${JSON.stringify(m)}`);
      const tickets = Number(
        (
          await client.query<{ n: string }>(
            "select count(*) as n from tickets where title like 'Load ticket %'",
          )
        ).rows[0]!.n,
      );
      const verified = await createAuditLog({ db: handle.db }).verify();
      const sorted = [...acks].sort((a, b) => a - b);
      const pct = (p: number) =>
        Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!);
      return {
        threads,
        ackMs: { p50: pct(0.5), p99: pct(0.99), max: Math.round(sorted.at(-1)!) },
        totalMs,
        wrongAnswers,
        audit: {
          requested: sum("tool.requested"),
          executed: sum("tool.executed"),
          other: rows.reduce((a, r) => a + Number(r.n), 0) - sum("tool.requested") - sum("tool.executed"),
          badCalls,
        },
        tickets,
        modelRequests,
        chainOk: verified.ok,
      };
    } finally {
      await client.end();
    }
  } finally {
    await hermes.stop().catch(() => hermes.kill9());
    await handle.close();
    await Promise.all([emulator.stop(), model.stop()]);
    await db.drop();
    const redis = connectTestRedis();
    await deleteKeysWithPrefix(redis, `${redisPrefix}:`).finally(() => redis.disconnect());
    dir.remove();
  }
}

/** One line for the test output (and docs/reliability.md). */
export function describeLoad(r: LoadReport): string {
  return (
    `load: ${r.threads} threads in ${r.totalMs} ms (${((r.threads * 1000) / r.totalMs).toFixed(1)} turns/s), ` +
    `ack p50 ${r.ackMs.p50} ms, p99 ${r.ackMs.p99} ms, max ${r.ackMs.max} ms; ` +
    `${r.modelRequests} model calls, ${r.audit.requested} requested / ${r.audit.executed} executed, ` +
    `${r.tickets} tickets, chain ${r.chainOk ? "verifies" : "BROKEN"}`
  );
}
