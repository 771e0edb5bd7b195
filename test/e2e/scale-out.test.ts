import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createBullmqTurnQueue } from "../../src/queue/bullmq-turn-queue.ts";
import type { TurnQueue } from "../../src/queue/turn-queue.ts";
import { createEventsSender, type EventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { createScheduleStore, type Schedule } from "../../src/schedules/schedule-store.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { type HermesCluster, type ReceiverMember, startHermesCluster } from "../helpers/hermes-cluster.ts";
import { productionEnv, tempDir } from "../helpers/hermes-process.ts";
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
import { type EffectsServer, startEffectsServer } from "../reliability/effects-server.ts";

/**
 * How the receivers are started. Until `npm start -- --receiver` exists they run as `npm start`
 * (receiver and worker in one process); once it does, this becomes `["--receiver"]` and the turns
 * run on the three workers only. Nothing else in this file depends on it.
 */
const RECEIVER_ARGS: string[] = ["--receiver"];
const RECEIVERS_RUN_TURNS = !RECEIVER_ARGS.includes("--receiver");

const SIGNING_SECRET = "scale-out-signing-secret";
const CHANNELS = ["C0OPS", "C0GENERAL"] as const;
const SCHEDULE_CHANNEL = "C0OPS";
const WANG_LEI_DM = "D0WANGLEI";
/** Threads of the burst, half sent to each receiver; the first OVERLAP_THREADS get three messages at once. */
const THREADS = 100;
const OVERLAP_THREADS = 10;
const APPROVALS = 4;
/** The scripted model's time per call. Overlap threads' calls take longer, so a broken lock would show. */
const MODEL_DELAY_MS = 50;
const OVERLAP_DELAY_MS = 250;
/** The killed worker's model call: never answered before the process is gone. */
const HOLD_MS = 10 * 60_000;
/**
 * A dead worker's job goes back to the queue once its lock expires and a stalled check (every half
 * of the lock) sees it: 15–23 s after the kill here (production default 60 s). A live worker renews
 * its locks every 7.5 s, far more often than a busy machine stalls an event loop.
 */
const QUEUE_LOCK_SECONDS = 15;
/** Every process re-reads the schedules this often (default 60 s), so schedule B is seen in time. */
const SCHEDULE_RELOAD_SECONDS = 5;
/** Bounds on waits that only catch a hang (the test waits on conditions, never on time). */
const TURNS_CEILING_MS = 240_000;
const RECOVERY_CEILING_MS = 300_000;

type Block = { type: string; elements?: Array<{ value?: string }> };

/** One turn the test asked for: its marker is in the user's words and in the one expected answer. */
interface Turn {
  marker: string;
  channel: string;
  threadTs: string;
  eventId: string;
  /** The receiver the event was sent to. */
  receiver: string;
}

const MARKER = /\b(burst-\d+|overlap-\d+-\d+|approve-\d+|kill-\d+|sched-[AB])\b/g;
const answerFor = (marker: string) => `Done: ${marker}.`;
const lastUserText = (r: RecordedRequest) =>
  r.body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
/** The marker the person wrote last (an in-thread turn may quote earlier ones before it). */
const markerOf = (r: RecordedRequest) => [...lastUserText(r).matchAll(MARKER)].at(-1)?.[1];
const hasToolResult = (r: RecordedRequest) => r.body.messages.some((m) => m.role === "tool");
/** Which process made a model call: each one's OPENAI_BASE_URL is `<model>/p/<label>/v1`. */
const processOf = (r: RecordedRequest) => /^\/p\/([^/]+)\//.exec(r.path)?.[1] ?? "?";
const delayed = (step: ScriptStep, delayMs = MODEL_DELAY_MS): ScriptStep =>
  ({ ...(step as object), delayMs }) as ScriptStep;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * Scale-out, as a deployment runs it: 2 receivers and 3 workers as separate processes on one Redis
 * and one Postgres (this file's own database and Redis prefix), one Slack emulator and one scripted
 * model (50 ms a call) in the test process. One scenario runs in `beforeAll`, with the slow parts
 * overlapping: a worker is killed mid-turn first (its job comes back only after its lock expires),
 * then a burst of 100 threads spread over both receivers, approvals clicked on the receiver that did
 * not take the event, and two schedules (one every process catches up on at start, one whose timer
 * fires on every process at once). Each `it` checks one property of what happened.
 */
describe("scale-out: 2 receivers + 3 workers as separate processes on one Redis and Postgres", () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let direct: pg.Pool;
  let emulator: SlackApiEmulator;
  let effects: EffectsServer;
  let queue: TurnQueue | undefined;
  let cluster: HermesCluster | undefined;
  let dir: ReturnType<typeof tempDir> | undefined;
  const redisPrefix = `so${Math.random().toString(36).slice(2, 10)}`;

  const senders = new Map<string, EventsSender>();
  const turns: Turn[] = [];
  const overlapThreads: Turn[][] = [];
  const approvalTurns: Array<Turn & { card: SandboxMessage; clickedOn: string }> = [];
  const scheduled = new Map<"A" | "B", Schedule>();
  let victim: { marker: string; label: string } | undefined;
  /** Labels of the processes that take turns, and of those still alive after the kill. */
  let turnTakers: string[] = [];

  const sq = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    direct.query<T>(text, values).then((r) => r.rows);

  /** The model, by the person's words: markers say what each turn does. */
  function script(req: RecordedRequest): ScriptStep {
    const marker = markerOf(req);
    if (!marker) return answer("No marker: this request was not expected.");
    const kind = marker.split("-")[0];
    if (kind === "approve") {
      return hasToolResult(req)
        ? delayed(answer(answerFor(marker)))
        : delayed(
            toolCalls([
              { name: "send_message", args: { to: "<@U0WANGLEI>", text: `${marker}: the deploy is done` } },
            ]),
          );
    }
    if (kind === "kill") {
      if (!hasToolResult(req))
        return delayed(toolCalls([{ name: "notify_ops", args: { note: `${marker}: db1 disk full` } }]));
      // The first kill turn whose second step reaches a worker process holds it there until the test
      // kills that process; every other one (and the continuation after the kill) is answered.
      const who = processOf(req);
      if (!victim && who.startsWith("w")) {
        victim = { marker, label: who };
        return delayed(answer(answerFor(marker)), HOLD_MS);
      }
      return delayed(answer(answerFor(marker)));
    }
    return delayed(answer(answerFor(marker)), kind === "overlap" ? OVERLAP_DELAY_MS : MODEL_DELAY_MS);
  }

  const requestsFor = (marker: string) => model.requests.filter((r) => markerOf(r) === marker);
  const botReplies = (channel: string, ts: string) =>
    (emulator.workspace.replies(channel, ts) ?? []).filter(
      (m) => m.user === "U0HERMES" && m.ts !== ts && !m.text.startsWith(":hourglass_flowing_sand:"),
    );
  const answersIn = (channel: string, ts: string, marker: string) =>
    botReplies(channel, ts).filter((m) => m.text === answerFor(marker));
  /** Every Web API call that put this turn's answer in Slack (a new message or the working one replaced). */
  const answerCalls = (marker: string) =>
    emulator.calls.filter(
      (c) =>
        (c.method === "chat.postMessage" || c.method === "chat.update") &&
        (c.args as { text?: unknown }).text === answerFor(marker),
    );
  const cardIn = (channel: string, ts: string) =>
    botReplies(channel, ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions"));
  const scheduleHeader = (which: "A" | "B") =>
    emulator.workspace
      .history(SCHEDULE_CHANNEL)
      .filter((m) => m.user === "U0HERMES" && m.text.includes(`> sched-${which}`));

  async function mention(receiver: ReceiverMember, marker: string, channel: string, threadTs?: string) {
    const d = await senders.get(receiver.label)!.appMention({
      user: "U0USER1",
      channel,
      text: `<@U0HERMES> please handle ${marker}`,
      ...(threadTs ? { threadTs } : {}),
    });
    if (d.status !== 200) throw new Error(`${marker} to ${receiver.label}: HTTP ${d.status} ${d.body}`);
    const turn: Turn = {
      marker,
      channel,
      threadTs: threadTs ?? d.message!.ts,
      eventId: d.eventId!,
      receiver: receiver.label,
    };
    turns.push(turn);
    return turn;
  }

  /** Polls `check` until it holds; on a hang, fails saying what is still missing and what the processes said. */
  async function until(check: () => Promise<string[]> | string[], what: string, ceilingMs: number) {
    const deadline = Date.now() + ceilingMs;
    let missing: string[] = [];
    for (;;) {
      missing = await check();
      if (missing.length === 0) return;
      if (Date.now() > deadline) {
        const logs = (cluster?.all ?? []).map((m) => `--- ${m.label}:\n${m.output().slice(-2000)}`);
        throw new Error(
          `${what}: still missing after ${ceilingMs} ms: ${missing.slice(0, 20).join(", ")}\n${logs.join("\n")}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    dir = tempDir("scale-out");
    db = await createTestDatabase();
    handle = await openDatabase({
      databaseUrl: db.url,
      dataDir: "",
      logger: silentLogger(),
      maxConnections: 2,
    });
    await migrate(handle);
    direct = testPool({ connectionString: db.url, max: 2 });
    direct.on("error", () => undefined);
    emulator = await startSlackEmulator();
    effects = await startEffectsServer();
    model.fallback = (req) => script(req);
    await model.start();
    queue = createBullmqTurnQueue({ redis: testRedisUrl, logger: silentLogger(), prefix: redisPrefix });

    // Schedule A: its one fire (a second ago) was missed while no process ran, so every process
    // catches up on it as it starts; the claim lets one of them run it.
    const schedules = createScheduleStore({ db: handle.db });
    const now = new Date();
    scheduled.set(
      "A",
      await schedules.add({
        cron: yearlyAt(new Date(now.getTime() - 2000)),
        channelId: SCHEDULE_CHANNEL,
        prompt: "sched-A: summarize the open tickets",
        ownerId: "U0ADMIN",
        createdAt: new Date(now.getTime() - 3600_000),
      }),
    );

    const toolsFile = effects.writeToolsFile(dir.path);
    const began = Date.now();
    cluster = await startHermesCluster({
      receivers: 2,
      workers: 3,
      receiverArgs: RECEIVER_ARGS,
      env: (label) =>
        productionEnv({
          slackApiUrl: emulator.url,
          signingSecret: SIGNING_SECRET,
          databaseUrl: db.url,
          redisUrl: testRedisUrl,
          redisPrefix,
          dataDir: dir!.path,
          modelBaseUrl: `${model.baseURL.replace(/\/v1$/, "")}/p/${label}/v1`,
          extra: {
            HERMES_HTTP_TOOLS: toolsFile,
            HERMES_TURN_TIMEOUT_SECONDS: "600",
            HERMES_QUEUE_LOCK_SECONDS: String(QUEUE_LOCK_SECONDS),
            HERMES_SCHEDULE_RELOAD_SECONDS: String(SCHEDULE_RELOAD_SECONDS),
          },
        }),
    });
    const { receivers } = cluster;
    for (const r of receivers)
      senders.set(
        r.label,
        createEventsSender({ url: r.eventsUrl, signingSecret: SIGNING_SECRET, slack: emulator }),
      );
    turnTakers = [...(RECEIVERS_RUN_TURNS ? receivers : []), ...cluster.workers].map((m) => m.label);

    // Schedule B: added while every process runs; each sees it at its next reload (every 5 s) and
    // arms a timer for the same instant, so they all try to claim the one fire at once.
    scheduled.set(
      "B",
      await schedules.add({
        cron: yearlyAt(new Date(Date.now() + 30_000)),
        channelId: SCHEDULE_CHANNEL,
        prompt: "sched-B: report the queue length",
        ownerId: "U0ADMIN",
      }),
    );
    // A's turn runs before anything else, so that no process is killed while holding it.
    await until(
      () =>
        scheduleHeader("A").some((h) => answersIn(SCHEDULE_CHANNEL, h.ts, "sched-A").length > 0)
          ? []
          : ["sched-A"],
      "the caught-up schedule's answer",
      TURNS_CEILING_MS,
    );

    // Kill one worker mid-turn: kill turns go to alternating receivers until one's second model call
    // (after its side-effecting notify_ops ran) is on a worker process; that call is held, and the
    // process gets SIGKILL while it waits for it.
    for (let n = 1; !victim; n++) {
      if (n > 12) throw new Error("no kill turn's model call reached a worker process in 12 tries");
      const marker = `kill-${n}`;
      await mention(receivers[n % 2]!, marker, CHANNELS[0]);
      await until(
        () => (requestsFor(marker).some(hasToolResult) ? [] : [marker]),
        "a kill turn's second model call",
        TURNS_CEILING_MS,
      );
    }
    // The checkpoint after a step's calls lands behind the next model request, not before it
    // (docs/architecture.md, "What a step waits for"): a worker killed before it lands is continued
    // from the checkpoint before and settles the call from the audit log instead. This test is about
    // the checkpoint the call's result is in, so it kills once that one is stored.
    const victimTurn = turns.find((t) => t.marker === victim!.marker)!;
    await until(
      async () => {
        const [row] = await sq<{ stored: boolean }>(
          `select jsonb_path_exists(snapshot, '$.messages[*] ? (@.role == "tool")') as stored
             from runs where event_id = $1`,
          [victimTurn.eventId],
        );
        return row?.stored ? [] : [victim!.marker];
      },
      "the checkpoint with the kill turn's tool result",
      TURNS_CEILING_MS,
    );
    await cluster.member(victim.label).kill9();
    const killedAt = Date.now();
    const upMs = killedAt - began;
    turnTakers = turnTakers.filter((l) => l !== victim!.label);

    // The burst, while the dead worker's turn waits for its lock to expire: 100 threads, thread i to
    // receiver i % 2; the first OVERLAP_THREADS get two more messages at once, to the other receiver
    // and back, before any is answered.
    const receiverFor = (i: number) => receivers[i % 2]!;
    const channelFor = (i: number) => CHANNELS[Math.floor(i / 2) % 2]!;
    const burst = Promise.all(
      range(THREADS).map(async (i) => {
        if (i >= OVERLAP_THREADS) return mention(receiverFor(i), `burst-${i}`, channelFor(i));
        const first = await mention(receiverFor(i), `overlap-${i}-1`, channelFor(i));
        const rest = await Promise.all([
          mention(receiverFor(i + 1), `overlap-${i}-2`, first.channel, first.threadTs),
          mention(receiverFor(i), `overlap-${i}-3`, first.channel, first.threadTs),
        ]);
        overlapThreads.push([first, ...rest]);
      }),
    );

    // Approvals alongside: each card is clicked on the receiver that did not take the event.
    const approvals = Promise.all(
      range(APPROVALS).map(async (k) => {
        const marker = `approve-${k}`;
        const turn = await mention(receivers[k % 2]!, marker, CHANNELS[k % 2]!);
        await until(
          () => (cardIn(turn.channel, turn.threadTs) ? [] : [marker]),
          "an approval card",
          TURNS_CEILING_MS,
        );
        const card = cardIn(turn.channel, turn.threadTs);
        const other = receivers[(k + 1) % 2]!;
        const click = await senders.get(other.label)!.blockAction({
          user: "U0USER1",
          actionId: "hermes.approve",
          value: approvalIdOf(card!),
          channel: turn.channel,
          messageTs: card!.ts,
        });
        if (click.status !== 200)
          throw new Error(`click on ${other.label}: HTTP ${click.status} ${click.body}`);
        approvalTurns.push({ ...turn, card: card!, clickedOn: other.label });
      }),
    );
    await Promise.all([burst, approvals]);

    // Every turn answered (the dead worker's too, once its job comes back), and schedule B fired.
    await until(
      () => turns.filter((t) => answersIn(t.channel, t.threadTs, t.marker).length === 0).map((t) => t.marker),
      "answers",
      RECOVERY_CEILING_MS,
    );
    await until(
      () =>
        scheduleHeader("B").some((h) => answersIn(SCHEDULE_CHANNEL, h.ts, "sched-B").length > 0)
          ? []
          : ["sched-B"],
      "the timer-fired schedule's answer",
      RECOVERY_CEILING_MS,
    );
    // Settled: nothing queued or running, every event finished. A duplicate would be visible now.
    await until(
      async () => {
        const c = await queue!.counts();
        const open = await sq<{ n: number }>(
          "select count(*)::int as n from slack_events where status <> 'done'",
        );
        const busy = c.active + c.waiting + c.delayed;
        return [
          ...(busy > 0 ? [`${busy} queued or running jobs`] : []),
          ...(open[0]!.n > 0 ? [`${open[0]!.n} unfinished events`] : []),
        ];
      },
      "the queue and the events to settle",
      TURNS_CEILING_MS,
    );
    const continuedAt = answerCalls(victim.marker)[0]?.at.getTime() ?? Number.NaN;
    console.log(
      `scale-out: processes up and kill turn held ${upMs} ms after the start; killed ${victim.label}, whose turn was answered again ${continuedAt - killedAt} ms later; everything settled ${Date.now() - began} ms after the start`,
    );
  }, 900_000);

  afterAll(async () => {
    await cluster?.killAll();
    await queue?.stop({ timeoutMs: 1000 }).catch(() => undefined);
    await direct?.end();
    await handle?.close();
    await emulator?.stop();
    await effects?.stop();
    await model.stop();
    await db?.drop();
    const admin = connectTestRedis();
    await deleteKeysWithPrefix(admin, `${redisPrefix}:`).finally(() => admin.disconnect());
    dir?.remove();
  }, 120_000);

  it("the 100 threads' events went half to each receiver, and every turn was answered exactly once", async () => {
    const burstTurns = turns.filter((t) => /^(burst|overlap)-/.test(t.marker));
    expect(burstTurns).toHaveLength(THREADS + 2 * OVERLAP_THREADS);
    const perReceiver = (label: string) => burstTurns.filter((t) => t.receiver === label).length;
    expect(perReceiver("r1")).toBe(perReceiver("r2"));

    const wrong = turns.flatMap((t) => {
      const shown = answersIn(t.channel, t.threadTs, t.marker).length;
      const posted = answerCalls(t.marker).length;
      return shown === 1 && posted === 1 ? [] : [`${t.marker}: ${shown} shown, ${posted} posted`];
    });
    expect(wrong).toEqual([]);
    // One model call per plain turn: none ran twice, none was lost before its model call.
    const calledTwice = burstTurns.filter((t) => requestsFor(t.marker).length !== 1).map((t) => t.marker);
    expect(calledTwice).toEqual([]);
    expect(model.requests.filter((r) => !markerOf(r))).toEqual([]);
    // Nothing failed anywhere: no warning in a thread, every event done, every run completed.
    const warnings = CHANNELS.flatMap((c) =>
      emulator.workspace
        .history(c)
        .flatMap((root) => [root, ...(emulator.workspace.replies(c, root.ts) ?? [])])
        .filter((m) => m.user === "U0HERMES" && m.text.includes(":warning:"))
        .map((m) => m.text),
    );
    expect(warnings).toEqual([]);
    // Every event finished (clicks are recorded too, so there are more rows than turns).
    const events = await sq<{ event_id: string; status: string }>(
      "select event_id, status from slack_events",
    );
    expect(events.filter((e) => e.status !== "done")).toEqual([]);
    const recorded = new Set(events.map((e) => e.event_id));
    expect(turns.filter((t) => !recorded.has(t.eventId)).map((t) => t.marker)).toEqual([]);
    const runs = await sq<{ status: string; n: number }>(
      "select status, count(*)::int as n from runs group by status",
    );
    expect(runs).toEqual([{ status: "completed", n: turns.length + scheduled.size }]);
    expect((await queue!.counts()).failed).toBe(0);

    // The surviving processes shared the burst (it was sent after the kill).
    const byProcess = new Map<string, number>();
    for (const t of burstTurns) {
      const who = processOf(requestsFor(t.marker)[0]!);
      byProcess.set(who, (byProcess.get(who) ?? 0) + 1);
    }
    console.log(`burst turns per process: ${JSON.stringify(Object.fromEntries(byProcess))}`);
    expect([...byProcess.keys()].sort()).toEqual([...turnTakers].sort());
  });

  it("turns of one thread never overlap, even with its messages sent to different receivers, and each sees the one before", async () => {
    expect(overlapThreads).toHaveLength(OVERLAP_THREADS);
    for (const thread of overlapThreads) {
      expect(new Set(thread.map((t) => t.receiver)).size).toBe(2);
      // Each turn's run, from the moment it took the thread's lock to the moment it finished, by
      // Postgres's clock (one clock for every process).
      const runs = await sq<{ event_id: string; started: Date; finished: Date }>(
        `select event_id, created_at as started, updated_at as finished from runs
          where event_id = any($1) order by created_at`,
        [thread.map((t) => t.eventId)],
      );
      expect(runs).toHaveLength(3);
      for (let i = 1; i < runs.length; i++)
        expect(runs[i]!.started.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.finished.getTime());
      // The model saw them one after the other, each with the earlier turns' questions and answers.
      const calls = thread
        .map((t) => ({ marker: t.marker, request: requestsFor(t.marker)[0]! }))
        .sort((a, b) => a.request.at - b.request.at);
      for (let i = 1; i < calls.length; i++) {
        const earlier = calls[i - 1]!;
        const later = calls[i]!;
        expect(later.request.at - earlier.request.at).toBeGreaterThanOrEqual(OVERLAP_DELAY_MS);
        const history = later.request.body.messages.slice(0, -1);
        const asked = history.findIndex((m) => m.role === "user" && m.content?.includes(earlier.marker));
        const answered = history.findIndex(
          (m) => m.role === "assistant" && m.content === answerFor(earlier.marker),
        );
        expect(asked).toBeGreaterThanOrEqual(0);
        expect(answered).toBeGreaterThan(asked);
      }
    }
  });

  it("an approval clicked on the receiver that did not take the event resumes once, on whichever worker is free", async () => {
    expect(approvalTurns).toHaveLength(APPROVALS);
    const resumedOn: string[] = [];
    for (const t of approvalTurns) {
      expect(t.clickedOn).not.toBe(t.receiver);
      const [first, ...again] = requestsFor(t.marker).filter((r) => !hasToolResult(r));
      const resumed = requestsFor(t.marker).filter(hasToolResult);
      expect(first).toBeDefined();
      expect(again).toEqual([]);
      expect(resumed).toHaveLength(1);
      expect(turnTakers).toContain(processOf(resumed[0]!));
      resumedOn.push(`${t.marker}: paused on ${processOf(first!)}, resumed on ${processOf(resumed[0]!)}`);
      // The message went out once; the card says who approved it.
      expect(
        emulator.workspace.history(WANG_LEI_DM).filter((m) => m.text.includes(`${t.marker}:`)),
      ).toHaveLength(1);
      const card = emulator.workspace.getMessage(t.channel, t.card.ts)!;
      expect(((card.blocks ?? []) as Block[]).some((b) => b.type === "actions")).toBe(false);
      expect(JSON.stringify(card.blocks)).toContain("Approved by <@U0USER1>");
    }
    console.log(`approvals: ${resumedOn.join("; ")}`);
    const audit = await sq<{ action: string; n: number }>(
      `select action, count(*)::int as n from audit_log where tool = 'send_message' group by action order by action`,
    );
    expect(audit).toEqual(
      ["tool.approval_requested", "tool.approved", "tool.executed", "tool.requested"].map((action) => ({
        action,
        n: APPROVALS,
      })),
    );
  });

  it("each schedule fires once with every process running: the caught-up one and the timer-fired one", async () => {
    for (const which of ["A", "B"] as const) {
      const schedule = scheduled.get(which)!;
      const fires = await sq<{ status: string }>("select status from schedule_fires where schedule_id = $1", [
        schedule.id,
      ]);
      expect(fires).toEqual([{ status: "done" }]);
      const headers = scheduleHeader(which);
      expect(headers).toHaveLength(1);
      expect(answersIn(SCHEDULE_CHANNEL, headers[0]!.ts, `sched-${which}`)).toHaveLength(1);
      expect(answerCalls(`sched-${which}`)).toHaveLength(1);
      expect(requestsFor(`sched-${which}`)).toHaveLength(1);
    }
    expect(scheduleHeader("A")[0]!.text).toContain("catching up");
  });

  it("a worker killed mid-turn: another worker continues its turn from the checkpoint, the tool does not run again, the answer is posted once", async () => {
    const killed = victim!;
    expect(cluster!.member(killed.label).kind).toBe("worker");
    const steps = requestsFor(killed.marker);
    expect(steps.filter((r) => !hasToolResult(r))).toHaveLength(1);
    const second = steps.filter(hasToolResult);
    // The call the process died in, then the same step again on a live process (not the first step).
    expect(second.map(processOf)[0]).toBe(killed.label);
    expect(second).toHaveLength(2);
    expect(turnTakers).toContain(processOf(second[1]!));
    // notify_ops ran once, before the kill, and was neither run again nor reported as interrupted.
    expect(effects.effects.filter((e) => String(e.note).startsWith(`${killed.marker}:`))).toHaveLength(1);
    const audit = await sq<{ action: string; error: string | null }>(
      `select action, error from audit_log where tool = 'notify_ops' and args::text like $1 order by id`,
      [`%${killed.marker}:%`],
    );
    expect(audit.map((r) => r.action)).toEqual(["tool.requested", "tool.executed"]);
    const turn = turns.find((t) => t.marker === killed.marker)!;
    expect(botReplies(turn.channel, turn.threadTs).map((m) => m.text)).toEqual([answerFor(killed.marker)]);
    // The same run went on from its checkpoint (not a new run of the turn): one run for the event,
    // and the repeated step carries the same call and the result kept before the kill.
    const runs = await sq<{ status: string }>("select status from runs where event_id = $1", [turn.eventId]);
    expect(runs).toEqual([{ status: "completed" }]);
    const callAndResult = (r: RecordedRequest) =>
      r.body.messages.filter((m) => m.tool_calls?.length || m.role === "tool");
    expect(callAndResult(second[1]!)).toEqual(callAndResult(second[0]!));
    // The survivor that took it over says so in its log (flushed within a second, like any line).
    const took = "continuing a turn whose worker died, from its checkpoint";
    await until(
      () => (cluster!.all.some((m) => m.output().includes(took)) ? [] : [took]),
      "the log line",
      30_000,
    );
    expect(cluster!.all.filter((m) => m.output().includes(took)).map((m) => m.label)).toEqual([
      processOf(second[1]!),
    ]);
    // Every kill turn that was not held (they ran on a receiver's worker) ran its tool once too.
    const killTurns = turns.filter((t) => t.marker.startsWith("kill-"));
    for (const t of killTurns)
      expect(effects.effects.filter((e) => String(e.note).startsWith(`${t.marker}:`))).toHaveLength(1);
    const failed = await sq<{ n: number }>(
      "select count(*)::int as n from audit_log where action = 'tool.failed'",
    );
    expect(failed[0]!.n).toBe(0);
  });

  it("the audit chain written by five processes verifies", async () => {
    const verified = await createAuditLog({ db: handle.db }).verify();
    expect(verified).toMatchObject({ ok: true });
    const rows = (verified as { rows: number }).rows;
    // At least the approvals' four rows each and the kill turns' two.
    expect(rows).toBeGreaterThanOrEqual(APPROVALS * 4 + 2);
  });
});

/** A 6-field cron pattern (seconds first) that fires once a year, at `at` (UTC, whole seconds). */
function yearlyAt(at: Date): string {
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
}

function approvalIdOf(card: SandboxMessage): string {
  return (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value!;
}
