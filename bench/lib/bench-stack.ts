import { createEventsSender, type EventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator, SlackApiEmulatorOptions } from "../../src/sandbox/slack-api-server.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { productionEnv } from "../../test/helpers/hermes-process.ts";
import { createTestDatabase, type TestDatabase } from "../../test/helpers/pg.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl } from "../../test/helpers/redis.ts";
import {
  answer,
  type RecordedRequest,
  ScriptedModelServer,
  type ScriptStep,
  toolCalls,
} from "../../test/helpers/scripted-model.ts";
import { startSlackEmulator } from "../../test/helpers/slack.ts";
import { type HermesProcess, type Role, startHermesProcess } from "./hermes-processes.ts";
import { type BurstClient, fireAtOnce, prepareMentions } from "./signed-burst.ts";
import { tempDir } from "./temp-dir.ts";

const SIGNING_SECRET = "bench-signing-secret";
export const CHANNEL = "C0OPS";
export const USER = "U0USER1";

/**
 * What a turn asks the scripted model to do, named in the user's text (`bench <token> <kind>`):
 * `tool` opens a ticket (one tool call: a DB write and two audit rows), then answers; `plain`
 * answers at once; `approve` asks to run `send_message`, which always needs approval (the run pauses).
 */
export type TurnKind = "tool" | "plain" | "approve";

/** One delivered event and, later, its outcome in the thread. */
export interface SentTurn {
  token: string;
  /** ms from sending the signed request to its HTTP answer. */
  ackMs: number;
  status: number;
  /** The user message's ts (the thread root for a new thread). */
  ts: string;
  /** Resolves with ms from sending to the answer (or approval card) appearing in the thread. */
  done: Promise<number>;
}

/**
 * One Postgres database, one Redis prefix, the Slack Web API emulator and a scripted model server
 * (each model call waits `modelDelayMs`), for Hermes processes started on them. `close()` stops every
 * process started here, drops the database, deletes the Redis keys and removes the data folder.
 * `emulator` options reach the Slack emulator (e.g. `rateLimits` to enforce Slack's published rates).
 */
export async function createBenchStack(options: { emulator?: SlackApiEmulatorOptions } = {}) {
  const cleanups: Array<() => Promise<void> | void> = [];
  const close = async () => {
    open.delete(close);
    for (const fn of cleanups.reverse())
      await Promise.resolve()
        .then(fn)
        .catch(() => undefined);
    cleanups.length = 0;
  };
  open.add(close);
  try {
    const dir = tempDir("bench");
    const dataDir = dir.path;
    cleanups.push(() => dir.remove());
    const db: TestDatabase = await createTestDatabase("hermes_bench");
    cleanups.push(() => db.drop());
    const redisPrefix = `bench${Math.random().toString(36).slice(2, 10)}`;
    cleanups.push(async () => {
      const redis = connectTestRedis();
      await deleteKeysWithPrefix(redis, `${redisPrefix}:`).finally(() => redis.disconnect());
    });
    const emulator: SlackApiEmulator = await startSlackEmulator(options.emulator);
    cleanups.push(() => emulator.stop());
    const model = new ScriptedModelServer();
    model.record = false;
    const state = {
      modelDelayMs: 0,
      modelCalls: 0,
      /** Called with every model request (to look at what Hermes sends). */
      onRequest: undefined as ((req: RecordedRequest) => void) | undefined,
    };
    model.fallback = (req) => {
      state.modelCalls++;
      state.onRequest?.(req);
      return { ...(stepFor(req) as object), delayMs: state.modelDelayMs } as ScriptStep;
    };
    await model.start();
    cleanups.push(() => model.stop());

    const processes = new Set<HermesProcess>();
    cleanups.push(() => Promise.all([...processes].map((p) => p.stop())).then(() => undefined));
    const baseEnv = productionEnv({
      slackApiUrl: emulator.url,
      signingSecret: SIGNING_SECRET,
      databaseUrl: db.url,
      redisUrl: testRedisUrl,
      redisPrefix,
      dataDir,
      modelBaseUrl: model.baseURL,
      extra: { HERMES_TURN_TIMEOUT_SECONDS: "900" },
    });
    const waiters = createAnswerWaiters(emulator);
    cleanups.push(() => waiters.close());

    return {
      db,
      emulator,
      model,
      state,
      redisPrefix,
      env: baseEnv,
      /** Starts a Hermes process on this stack (stopped by `close()` at the latest). */
      async start(
        role: Role,
        options: { env?: Record<string, string>; nodeArgs?: string[]; appDir?: string } = {},
      ) {
        const p = await startHermesProcess(role, { ...baseEnv, ...options.env }, options);
        processes.add(p);
        return p;
      },
      async stopProcess(p: HermesProcess) {
        await p.stop();
        processes.delete(p);
      },
      /** A sender of signed events to one receiver's `/slack/events`. */
      driver(receiver: HermesProcess) {
        return createTurnDriver(
          createEventsSender({
            url: `http://127.0.0.1:${receiver.port}/slack/events`,
            signingSecret: SIGNING_SECRET,
            slack: emulator,
          }),
          waiters,
        );
      },
      /**
       * `size` mentions, each a new thread, prepared (posted, signed) first and then delivered all at
       * once over plain HTTP, as the ack floor's are: `ackMs` is the receiver's answer alone. Mention
       * `i` goes to `channels[i % channels.length]` (by default the one bench channel); `onFiring`
       * runs as the client starts sending.
       */
      async burst(
        receiver: HermesProcess,
        kind: TurnKind,
        size: number,
        client: BurstClient = "raw",
        o: { channels?: readonly string[]; onFiring?: () => void } = {},
      ): Promise<SentTurn[]> {
        const channels = o.channels ?? [CHANNEL];
        const tokens = Array.from({ length: size }, () => nextToken());
        const answered = tokens.map((token) => waiters.wait(token));
        const prepared = tokens.map(
          (token, i) =>
            prepareMentions(emulator.workspace, {
              signingSecret: SIGNING_SECRET,
              channel: channels[i % channels.length]!,
              user: USER,
              texts: [`<@U0HERMES> bench ${token} ${kind}`],
            })[0]!,
        );
        let t0 = performance.now();
        const { latencies, statuses } = await fireAtOnce(
          `http://127.0.0.1:${receiver.port}/slack/events`,
          prepared,
          () => {
            t0 = performance.now();
            o.onFiring?.();
          },
          client,
        );
        return tokens.map((token, i) => {
          if (statuses[i] !== 200) throw new Error(`event ${token}: HTTP ${statuses[i]}`);
          return {
            token,
            ackMs: latencies[i]!,
            status: statuses[i]!,
            ts: prepared[i]!.ts,
            done: answered[i]!.then((at) => at - t0),
          };
        });
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export type BenchStack = Awaited<ReturnType<typeof createBenchStack>>;

const open = new Set<() => Promise<void>>();

/** Closes every stack still open: processes, database, Redis keys, folders. */
export async function closeAllStacks(): Promise<void> {
  await Promise.all([...open].map((close) => close()));
}

/**
 * For a benchmark that holds something outside a stack (its own database, a folder): `fn` also runs
 * if the run is interrupted. Call the returned function once it is released in the normal way.
 */
export function cleanUpOnInterrupt(fn: () => Promise<void> | void): () => void {
  const close = async () => {
    open.delete(close);
    await Promise.resolve()
      .then(fn)
      .catch(() => undefined);
  };
  open.add(close);
  return () => open.delete(close);
}

// A benchmark stopped by Ctrl-C, or dying of an error no `finally` sees (an uncaught one, output
// piped into `head`), still leaves nothing behind.
let exiting = false;
function closeAndExit(why: string, code: number) {
  if (exiting) return;
  exiting = true;
  process.stderr.write(`[bench] ${why}: stopping processes, dropping databases\n`);
  void closeAllStacks().finally(() => process.exit(code));
}
// `on`, not `once`: Ctrl-C can reach this process more than once (npm relays it too).
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => closeAndExit(signal, 130));
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") closeAndExit("output closed", 0);
});
process.once("uncaughtException", (err) => {
  process.stderr.write(`${err.stack ?? String(err)}\n`);
  closeAndExit("uncaught error", 1);
});

function stepFor(req: RecordedRequest): ScriptStep {
  const messages = req.body.messages;
  // A rolling summary of trimmed history (asked without tools).
  if (!req.body.tools?.length) return answer("Earlier: the user asked for bench tickets, and got them.");
  const user = messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  const m = /bench (\w+) (tool|plain|approve)/.exec(user);
  const token = m?.[1] ?? "unknown";
  const kind = (m?.[2] ?? "plain") as TurnKind;
  // The last turn's tool result is after its user message: the model answers.
  const lastUser = messages.findLastIndex((x) => x.role === "user");
  const toolAnswered = messages.slice(lastUser).some((x) => x.role === "tool");
  if (kind === "plain" || toolAnswered) return answer(`Answer ${token}.`);
  if (kind === "tool")
    return toolCalls([{ name: "create_ticket", args: { title: `Bench ticket ${token}`, priority: "low" } }]);
  return toolCalls([{ name: "send_message", args: { to: "U0ADMIN", text: `Approval ${token}` } }]);
}

/** Resolves a waiter once the bot's message carrying its token (answer or approval card) shows up. */
function createAnswerWaiters(emulator: SlackApiEmulator) {
  const pending = new Map<string, (at: number) => void>();
  const seen = (message: SandboxMessage) => {
    if (message.user !== emulator.workspace.bot.userId || pending.size === 0) return;
    const text = `${message.text} ${message.blocks ? JSON.stringify(message.blocks) : ""}`;
    for (const m of text.matchAll(/(?:Answer|Approval) (\w+)/g)) {
      const resolve = pending.get(m[1]!);
      if (resolve) {
        pending.delete(m[1]!);
        resolve(performance.now());
      }
    }
  };
  const unsubscribe = emulator.workspace.subscribe((e) => {
    if (e.type === "message_posted" || e.type === "message_updated") seen(e.message);
  });
  return {
    wait(token: string): Promise<number> {
      return new Promise((resolve) => pending.set(token, resolve));
    },
    close() {
      unsubscribe();
      pending.clear();
    },
  };
}

let sequence = 0;
const nextToken = () => `t${(++sequence).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Sends `app_mention`s (a new thread, or a reply in `threadTs`) and tracks their answers. */
function createTurnDriver(sender: EventsSender, waiters: ReturnType<typeof createAnswerWaiters>) {
  return {
    async send(kind: TurnKind, options: { threadTs?: string; padding?: string } = {}): Promise<SentTurn> {
      const token = nextToken();
      const answered = waiters.wait(token);
      const t0 = performance.now();
      const d = await sender.appMention({
        user: USER,
        channel: CHANNEL,
        text: `<@U0HERMES> bench ${token} ${kind}${options.padding ? ` ${options.padding}` : ""}`,
        ...(options.threadTs ? { threadTs: options.threadTs } : {}),
      });
      const ackMs = performance.now() - t0;
      if (d.status !== 200) throw new Error(`event ${token}: HTTP ${d.status} ${d.body}`);
      return { token, ackMs, status: d.status, ts: d.message!.ts, done: answered.then((at) => at - t0) };
    },
  };
}

export type TurnDriver = ReturnType<typeof createTurnDriver>;

/** Waits for `promise`, failing (instead of hanging) after `ms`. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
