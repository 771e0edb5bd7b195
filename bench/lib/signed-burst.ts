/**
 * Bursts of signed `app_mention`s delivered the way Slack delivers them (one socket each, all at
 * once). Bodies, signatures and each request's bytes are made before the clock starts, and each
 * clock starts when its request is written, so a latency is the delivery and the receiver's answer
 * alone. `client: "http"` measures with `node:http`'s client instead, whose clocks also hold its
 * own request building (see `fire-at-once.ts`). The floor (a server that answers at once)
 * and Hermes' acks are measured with this same client, so the two figures can be read side by side.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { appMentionEvent, eventCallback } from "../../src/sandbox/event-payloads.ts";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { signSlackRequest } from "../../src/sandbox/slack-signature.ts";
import type { Workspace } from "../../src/sandbox/workspace.ts";

export interface PreparedMention {
  body: string;
  headers: Record<string, string>;
  /** The user message's ts in the workspace (the thread root). */
  ts: string;
}

/**
 * Posts each text as a user's message into `workspace` (so the bot's replies have a thread) and
 * builds its signed event callback.
 */
export function prepareMentions(
  workspace: Workspace,
  o: { signingSecret: string; channel: string; user: string; texts: string[] },
): PreparedMention[] {
  const app = {
    teamId: workspace.team.id,
    apiAppId: workspace.bot.appId,
    botUserId: workspace.bot.userId,
    verificationToken: "bench",
  };
  return o.texts.map((text) => {
    const m = postAsUser(workspace, { channel: o.channel, user: o.user, text });
    const event = appMentionEvent({
      user: o.user,
      channel: o.channel,
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
      "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
      ...signSlackRequest({ signingSecret: o.signingSecret, body }),
    };
    return { body, headers, ts: m.ts };
  });
}

/**
 * Fires every prepared request at once from the burst client's process (`fire-at-once.ts`); each
 * one's ms from being sent to its answer's end, in order. A child, not this process: the benchmark's
 * process also serves the Slack emulator and the model that the receiver calls while its acks come
 * back, and the client's clocks must not wait for that work. One child serves every burst (one at a
 * time), warmed up before its first. `onFiring` runs when the child starts sending.
 * `client` picks how it sends (`fire-at-once.ts`): raw sockets, or `node:http`'s client.
 */
export type BurstClient = "raw" | "http";

interface BurstProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the next line the child prints. */
  nextLine(): Promise<string>;
  /** Keeps this process alive for the child (while a burst is in flight) or not. */
  hold(): void;
  release(): void;
}

let shared: Promise<BurstProcess> | undefined;
/** Bursts in order: one at a time on the shared child. */
let queue: Promise<unknown> = Promise.resolve();

function startBurstProcess(): Promise<BurstProcess> {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./fire-at-once.ts", import.meta.url))], {
    stdio: ["pipe", "pipe", "inherit"],
  }) as unknown as ChildProcessWithoutNullStreams;
  const lines: string[] = [];
  const waiting: Array<{ resolve: (line: string) => void; reject: (err: Error) => void }> = [];
  let buffered = "";
  let failed: Error | undefined;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const w = waiting.shift();
      if (w) w.resolve(line);
      else lines.push(line);
    }
  });
  child.once("exit", (code, signal) => {
    failed = new Error(`the burst client exited (code ${code}, signal ${signal}): ${buffered.slice(0, 500)}`);
    if (shared === started) shared = undefined;
    for (const w of waiting.splice(0)) w.reject(failed);
  });
  const handles = [child, child.stdin, child.stdout] as unknown as Array<{ ref(): void; unref(): void }>;
  const p: BurstProcess = {
    child,
    hold: () => {
      for (const h of handles) h.ref();
    },
    // The child ends with this process (its stdin closes): between bursts nothing here waits for it.
    release: () => {
      for (const h of handles) h.unref();
    },
    nextLine: () => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  };
  const started = (async () => {
    const ready = await p.nextLine();
    if (ready !== "ready") throw new Error(`the burst client did not start: ${ready.slice(0, 500)}`);
    p.release();
    return p;
  })();
  return started;
}

/** Ends the shared burst client (the next burst starts a new one). */
export async function closeBurstClient(): Promise<void> {
  const current = shared;
  shared = undefined;
  if (!current) return;
  const p = await current.catch(() => undefined);
  if (!p || p.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => p.child.once("exit", () => resolve()));
  p.child.stdin.end();
  await exited;
}

export function fireAtOnce(
  url: string,
  prepared: PreparedMention[],
  onFiring: () => void = () => {},
  client: BurstClient = "raw",
): Promise<{ latencies: number[]; statuses: number[] }> {
  const run = queue.then(async () => {
    shared ??= startBurstProcess();
    const p = await shared;
    p.hold();
    try {
      p.child.stdin.write(
        `${JSON.stringify({ url, requests: prepared.map((r) => ({ body: r.body, headers: r.headers })), client })}\n`,
      );
      const firing = await p.nextLine();
      if (firing !== "firing") throw new Error(`the burst client failed: ${firing.slice(0, 500)}`);
      onFiring();
      return JSON.parse(await p.nextLine()) as { latencies: number[]; statuses: number[] };
    } finally {
      p.release();
    }
  });
  queue = run.catch(() => undefined);
  return run;
}
