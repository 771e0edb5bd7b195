/**
 * Bursts of signed `app_mention`s delivered the way Slack delivers them (one socket each, all at
 * once) over plain `node:http`. Bodies and signatures are made before the clock starts, so a
 * latency is the delivery and the receiver's answer alone. The floor (a server that answers at once)
 * and Hermes' acks are measured with this same client, so the two figures can be read side by side.
 */
import { randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
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

/** Fires every prepared request at once; each one's ms from being sent to its answer's end, in order. */
export async function fireAtOnce(
  url: string,
  prepared: PreparedMention[],
): Promise<{ latencies: number[]; statuses: number[] }> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const latencies: number[] = new Array(prepared.length);
  const statuses: number[] = new Array(prepared.length);
  try {
    await Promise.all(
      prepared.map(
        (r, i) =>
          new Promise<void>((resolve, reject) => {
            const t0 = performance.now();
            const req = request(url, { method: "POST", headers: r.headers, agent }, (res) => {
              res.resume();
              res.on("end", () => {
                latencies[i] = performance.now() - t0;
                statuses[i] = res.statusCode ?? 0;
                resolve();
              });
            });
            req.on("error", reject);
            req.end(r.body);
          }),
      ),
    );
  } finally {
    agent.destroy();
  }
  return { latencies, statuses };
}
