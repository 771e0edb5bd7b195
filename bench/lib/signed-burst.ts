/**
 * Bursts of signed `app_mention`s delivered the way Slack delivers them (one socket each, all at
 * once). Bodies, signatures and each request's bytes are made before the clock starts, and each
 * clock starts when its request is written, so a latency is the delivery and the receiver's answer
 * alone. `client: "http"` measures with `node:http`'s client instead, as the benchmark did before
 * stop 22 (see `fire-at-once.ts`). The floor (a server that answers at once)
 * and Hermes' acks are measured with this same client, so the two figures can be read side by side.
 */

import { spawn } from "node:child_process";
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
 * Fires every prepared request at once from a process of its own (`fire-at-once.ts`); each one's ms
 * from being sent to its answer's end, in order. A child, not this process: the benchmark's process
 * also serves the Slack emulator and the model that the receiver calls while its acks come back, and
 * the client's clocks must not wait for that work. `onFiring` runs when the child starts sending.
 * `client` picks how it sends (`fire-at-once.ts`): raw sockets, or `node:http` as before stop 22.
 */
export type BurstClient = "raw" | "http";

export async function fireAtOnce(
  url: string,
  prepared: PreparedMention[],
  onFiring: () => void = () => {},
  client: BurstClient = "raw",
): Promise<{ latencies: number[]; statuses: number[] }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./fire-at-once.ts", import.meta.url))], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  let firing = false;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    out += chunk;
    if (!firing && out.startsWith("firing\n")) {
      firing = true;
      onFiring();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  child.stdin.end(
    JSON.stringify({
      url,
      requests: prepared.map((r) => ({ body: r.body, headers: r.headers })),
      client,
    }),
  );
  const code = await exited;
  const result = out.split("\n")[1];
  if (code !== 0 || !result) throw new Error(`the burst client failed (exit ${code}): ${out.slice(0, 500)}`);
  return JSON.parse(result) as { latencies: number[]; statuses: number[] };
}
