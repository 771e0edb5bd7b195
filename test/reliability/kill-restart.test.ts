import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createBullmqTurnQueue } from "../../src/queue/bullmq-turn-queue.ts";
import { turnJobId } from "../../src/queue/jobs.ts";
import type { TurnQueue } from "../../src/queue/turn-queue.ts";
import { createEventsSender, type EventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { type HermesProcess, productionEnv, startHermesProcess, tempDir } from "../helpers/hermes-process.ts";
import { createTestDatabase, type TestDatabase, testPool } from "../helpers/pg.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl } from "../helpers/redis.ts";
import {
  answer,
  type RecordedRequest,
  ScriptedModelServer,
  type ScriptStep,
  toolCalls,
} from "../helpers/scripted-model.ts";
import { startSlackEmulator } from "../helpers/slack.ts";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.ts";
import { type EffectsServer, startEffectsServer } from "./effects-server.ts";

const SIGNING_SECRET = "kill-restart-signing-secret";
const CHANNEL = "C0OPS";
type Block = { type: string; elements?: Array<{ value?: string }> };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const userText = (r: RecordedRequest) =>
  r.body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
const hasToolResult = (r: RecordedRequest) => r.body.messages.some((m) => m.role === "tool");
/** Long enough to hold a worker slot until the test kills the process; never answered in time. */
const HOLD_MS = 10 * 60_000;
/**
 * Redis mode: a dead worker's jobs come back once their lock expires and a stalled check sees them,
 * 10–15 s after the kill here (production default 60 s).
 */
const QUEUE_LOCK_SECONDS = 10;
/** Turns a process runs at once here: few, so that a handful of hanging turns hold every slot. */
const WORKER_SLOTS = 4;

/**
 * `kill -9` of a real Hermes process in production mode (Postgres + Redis/BullMQ, HTTP receiver),
 * then a restart on the same database, Redis prefix and Slack workspace:
 * (a) after the ack, before the turn starts → the turn runs once;
 * (b) while a side-effecting tool runs → the call is reconciled as `interrupted`, the thread is told,
 *     and it is never executed again (not by the restart, not by the queue's redelivery of the job);
 * (c) while a run waits for approval → the card still works after the restart and the run resumes.
 */
describe.each([
  { mode: "Redis (sessions, locks, BullMQ)", redis: true },
  { mode: "no Redis (in-process queue, Postgres)", redis: false },
])("kill -9 and restart, $mode, real processes", ({ redis }) => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let emulator: SlackApiEmulator;
  /** Between Hermes and the Slack emulator: hung to hold a process inside a Slack call. */
  let slackProxy: TcpProxy;
  let effects: EffectsServer;
  let dir: ReturnType<typeof tempDir>;
  let hermes: HermesProcess | undefined;
  let sender: EventsSender;
  let handle: DatabaseHandle;
  let direct: pg.Pool;
  /** The same BullMQ queue as Hermes's (producer side only): to see when its jobs have settled. */
  let queue: TurnQueue | undefined;
  const redisPrefix = `kr${Math.random().toString(36).slice(2, 10)}`;
  /** While true, blocker turns' model calls hang (they hold the worker's slots). */
  let blockersHang = true;

  const start = async (extra: Record<string, string> = {}) => {
    hermes = await startHermesProcess(
      productionEnv({
        slackApiUrl: slackProxy.url(emulator.url),
        signingSecret: SIGNING_SECRET,
        databaseUrl: db.url,
        ...(redis ? { redisUrl: testRedisUrl, redisPrefix } : {}),
        dataDir: dir.path,
        modelBaseUrl: model.baseURL,
        extra: {
          HERMES_HTTP_TOOLS: effects.writeToolsFile(dir.path),
          HERMES_WORKER_CONCURRENCY: String(WORKER_SLOTS),
          HERMES_QUEUE_LOCK_SECONDS: String(QUEUE_LOCK_SECONDS),
          ...extra,
        },
      }),
    );
    sender = createEventsSender({
      url: `${hermes.origin}/slack/events`,
      signingSecret: SIGNING_SECRET,
      slack: emulator,
    });
  };
  const kill9 = async () => {
    await hermes?.kill9();
    hermes = undefined;
  };

  beforeAll(async () => {
    dir = tempDir("kill-restart");
    db = await createTestDatabase();
    emulator = await startSlackEmulator();
    // On ::1 with the emulator's own port: its loopback guard accepts `Host: [::1]:<its port>`.
    const slackPort = Number(new URL(emulator.url).port);
    slackProxy = await startTcpProxy(
      { host: "127.0.0.1", port: slackPort },
      { host: "::1", port: slackPort },
    );
    effects = await startEffectsServer();
    model.fallback = (req) => script(req);
    await model.start();
    handle = await openDatabase({
      databaseUrl: db.url,
      dataDir: "",
      logger: silentLogger(),
      maxConnections: 2,
    });
    direct = testPool({ connectionString: db.url, max: 2 });
    direct.on("error", () => undefined);
    if (redis)
      queue = createBullmqTurnQueue({ redis: testRedisUrl, logger: silentLogger(), prefix: redisPrefix });
  }, 120_000);
  afterAll(async () => {
    await kill9();
    await queue?.stop({ timeoutMs: 1000 });
    await direct?.end();
    await handle?.close();
    await slackProxy?.close();
    await emulator?.stop();
    await effects?.stop();
    await model.stop();
    await db?.drop();
    if (redis) {
      const admin = connectTestRedis();
      await deleteKeysWithPrefix(admin, `${redisPrefix}:`).finally(() => admin.disconnect());
    }
    dir?.remove();
  }, 120_000);

  /** The model, by the user's words: each case has its own marker. */
  function script(req: RecordedRequest): ScriptStep {
    const text = userText(req);
    if (text.includes("blocker")) {
      const step = answer("Blocker done.");
      return blockersHang ? ({ ...(step as object), delayMs: HOLD_MS } as ScriptStep) : step;
    }
    if (text.includes("case-a")) return answer(`Answered ${/case-a\d/.exec(text)?.[0]} once.`);
    if (text.includes("case-b"))
      return hasToolResult(req)
        ? answer("Paged ops.")
        : toolCalls([{ name: "notify_ops", args: { note: "case-b: db1 disk full" } }]);
    if (text.includes("case-c"))
      return hasToolResult(req)
        ? answer("Told Wang Lei.")
        : toolCalls([
            { name: "send_message", args: { to: "<@U0WANGLEI>", text: "case-c: see you after the crash" } },
          ]);
    return answer("?");
  }

  const requestsFor = (marker: string) => model.requests.filter((r) => userText(r).includes(marker));
  const replies = (ts: string) =>
    (emulator.workspace.replies(CHANNEL, ts) ?? []).filter(
      (m) => m.user === "U0HERMES" && m.ts !== ts && !m.text.startsWith(":hourglass_flowing_sand:"),
    );
  const mention = (text: string) =>
    sender.appMention({ user: "U0USER1", channel: CHANNEL, text: `<@U0HERMES> ${text}` });
  const eventStatus = async (eventId: string) =>
    (await direct.query<{ status: string }>("select status from slack_events where event_id = $1", [eventId]))
      .rows[0]?.status;
  const auditOf = async (tool: string) =>
    (
      await direct.query<{ action: string; error: string | null; tool_call_id: string }>(
        "select action, error, tool_call_id from audit_log where tool = $1 order by id",
        [tool],
      )
    ).rows;

  // Right after the ack (sent once the event is claimed), with Slack's Web API hanging: whatever the
  // process was doing after the ack (queueing the turn, posting its working message), it dies there.
  // Slack had its 200 and will not redeliver, so the turn must already be kept with its event (and
  // queued again at start).
  it("(a) killed after the ack while Slack's Web API hangs: the restart runs the turn once", async () => {
    await start({ HERMES_TURN_TIMEOUT_SECONDS: "300" });
    // Slack's Web API stops answering: any Slack call after the ack hangs.
    slackProxy.hang();
    const d = await mention("case-a1 what is up?");
    expect(d.status).toBe(200); // acked: Slack will not redeliver it
    await waitFor(async () => (await eventStatus(d.eventId!)) !== undefined, 60_000, "the event is claimed");
    await kill9();
    slackProxy.cut(); // drop what the dead process left in flight
    slackProxy.restore();
    expect(requestsFor("case-a1")).toHaveLength(0);

    await start({ HERMES_TURN_TIMEOUT_SECONDS: "300" });
    const ts = d.message!.ts;
    // Queued again at start: seconds on an idle machine; the ceiling only bounds a hang.
    await waitFor(() => replies(ts).find((m) => m.text === "Answered case-a1 once."), 90_000, "the answer");
    await sleep(1000);
    expect(requestsFor("case-a1")).toHaveLength(1);
    expect(replies(ts).map((m) => m.text)).toEqual(["Answered case-a1 once."]);
  }, 300_000);

  it("(a) killed after the ack with the turn queued but not started: the restart runs it once", async () => {
    if (!hermes) await start({ HERMES_TURN_TIMEOUT_SECONDS: "300" });
    blockersHang = true;
    // As many turns as the worker runs at once, whose model calls hang, hold every slot…
    for (let i = 0; i < WORKER_SLOTS; i++) expect((await mention(`blocker ${i}`)).status).toBe(200);
    await waitFor(
      () => requestsFor("blocker").length >= WORKER_SLOTS,
      60_000,
      "the blockers hold the worker",
    );
    // …so this one is acked and queued (at once after its claim: nothing waits for Slack), and waits.
    const d = await mention("case-a2 and now?");
    expect(d.status).toBe(200);
    const ts = d.message!.ts;
    await waitFor(async () => (await eventStatus(d.eventId!)) !== undefined, 60_000, "the event is claimed");
    if (queue)
      await waitFor(() => queue!.isPending(turnJobId(d.eventId!)), 60_000, "the turn's job is queued");
    await sleep(500);
    expect(requestsFor("case-a2")).toHaveLength(0); // the turn has not started
    await kill9();
    blockersHang = false;

    await start({ HERMES_TURN_TIMEOUT_SECONDS: "300" });
    await waitFor(() => replies(ts).find((m) => m.text === "Answered case-a2 once."), 90_000, "the answer");
    await sleep(1000);
    expect(requestsFor("case-a2")).toHaveLength(1);
    expect(replies(ts).map((m) => m.text)).toEqual(["Answered case-a2 once."]);
  }, 300_000);

  it("(b) killed while a side-effecting tool runs: reconciled as interrupted, the thread told, never executed again", async () => {
    await kill9();
    // The smallest turn budget. Redis mode: the queue hands the dead worker's job out again once its
    // lock expires, and that run settles the call (reconciliation would wait for a turn + 60 s).
    await start({ HERMES_TURN_TIMEOUT_SECONDS: "5" });
    effects.hold();
    const before = effects.effects.length;
    const d = await mention("case-b page ops, db1 is full");
    const ts = d.message!.ts;
    await waitFor(() => effects.effects.length === before + 1, 60_000, "the call is running");
    await kill9();
    effects.release();

    await start({ HERMES_TURN_TIMEOUT_SECONDS: "5" });
    const note = await waitFor(
      () => replies(ts).find((m) => m.text.includes("interrupted")),
      240_000,
      "the thread is told the call was interrupted",
    );
    expect(note.text).toContain("`notify_ops`");
    expect(note.text).toContain("not retried");
    const rows = await auditOf("notify_ops");
    const callIds = [...new Set(rows.map((r) => r.tool_call_id))];
    expect(callIds).toHaveLength(1);
    expect(rows.map((r) => r.action)).toEqual(["tool.requested", "tool.failed"]);
    expect(rows[1]!.error).toBe("interrupted");
    // The queue hands the dead worker's job out again once its lock expires: that must not run the
    // call again either. Wait until the job is settled (the thread has its final word), then look.
    // (In-process queue: the job died with the process; only the durable record can bring it back.)
    await waitFor(
      async () => {
        if (!queue) return true;
        const c = await queue.counts();
        return c.active + c.waiting + c.delayed === 0;
      },
      240_000,
      "the queue has settled the dead worker's jobs",
    );
    await sleep(1000);
    expect(effects.effects.length).toBe(before + 1);
    expect((await auditOf("notify_ops")).filter((r) => r.action === "tool.executed")).toEqual([]);
  }, 600_000);

  it("(c) killed while a run waits for approval: after the restart the card works and the run resumes once", async () => {
    // A process of its own: (b) leaves one whose turns end after 5 s, which a busy machine can take
    // before the card is posted (the turn then ends with a time-out sentence, not a card).
    await hermes?.stop();
    await start({ HERMES_TURN_TIMEOUT_SECONDS: "300" });
    const sent = () => emulator.workspace.history("D0WANGLEI").filter((m) => m.text.includes("case-c"));
    const d = await mention("case-c tell Wang Lei I'll see him");
    const ts = d.message!.ts;
    const card = await waitFor(
      () => replies(ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions")),
      60_000,
      "the approval card",
    );
    const approvalId = approvalIdOf(card);
    await kill9();
    await start({ HERMES_TURN_TIMEOUT_SECONDS: "300" });
    expect(sent()).toHaveLength(0);

    const click = await sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalId,
      channel: CHANNEL,
      messageTs: card.ts,
    });
    expect(click.status).toBe(200);
    await waitFor(() => replies(ts).find((m) => m.text === "Told Wang Lei."), 90_000, "the resumed answer");
    await sleep(1000);
    expect(sent()).toHaveLength(1);
    expect(requestsFor("case-c").filter(hasToolResult)).toHaveLength(1);
    const rows = await auditOf("send_message");
    expect(rows.filter((r) => r.action === "tool.executed")).toHaveLength(1);
    expect(JSON.stringify(emulator.workspace.getMessage(CHANNEL, card.ts)?.blocks)).toContain(
      "Approved by <@U0USER1>",
    );
    expect((await createAuditLog({ db: handle.db }).verify()).ok).toBe(true);
  }, 300_000);
});

function approvalIdOf(card: SandboxMessage): string {
  return (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value!;
}
