import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { verifySlackRequest } from "@slack/bolt";
import { WebClient } from "@slack/web-api";
import { quietSlackLogger } from "../../helpers/slack.ts";

/**
 * A stand-in for Hermes: a plain HTTP receiver that checks Slack's signature and answers through the
 * real WebClient. A mention or DM gets a thread reply with a section and two buttons (Approve with a
 * confirm, Reject) plus an ephemeral note for the asker; a click updates that message in place; a
 * slash command answers through its response_url; App Home gets a view.
 */

export interface TestBot {
  url: string;
  /** Every verified request body, parsed (events, block_actions payloads, commands). */
  received: Array<Record<string, unknown>>;
  /** Requests whose signature did not verify. */
  refused: number;
  stop(): Promise<void>;
}

export const REPLY_TEXT = "Hi! I can open that ticket for you. Go ahead?";

export async function startTestBot({
  apiUrl,
  signingSecret,
}: {
  apiUrl: string;
  signingSecret: string;
}): Promise<TestBot> {
  const client = new WebClient("xoxb-test", {
    slackApiUrl: apiUrl,
    retryConfig: { retries: 0 },
    logger: quietSlackLogger(),
  });
  const received: Array<Record<string, unknown>> = [];
  const pending = new Set<Promise<unknown>>();
  const bot: TestBot = { url: "", received, refused: 0, stop: async () => {} };

  const server = createServer(async (req, res) => {
    const body = await readText(req);
    try {
      verifySlackRequest({
        signingSecret,
        body,
        headers: {
          "x-slack-signature": String(req.headers["x-slack-signature"] ?? ""),
          "x-slack-request-timestamp": Number(req.headers["x-slack-request-timestamp"]),
        },
      });
    } catch {
      bot.refused += 1;
      res.writeHead(401).end();
      return;
    }
    const parsed = parse(body, req.headers["content-type"]);
    received.push(parsed);
    // `/hermes inline` answers in the acknowledgement itself, as Bolt's ack(text) does.
    if (parsed.command && parsed.text === "inline") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ text: "Answered in the ack" }));
      return;
    }
    res.writeHead(200).end();
    // Ack first (as Slack requires within 3 s), then act.
    const work = act(client, parsed).catch(() => {});
    pending.add(work);
    work.finally(() => pending.delete(work));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  bot.url = `http://127.0.0.1:${port}/slack/events`;
  bot.stop = async () => {
    await Promise.allSettled([...pending]);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return bot;
}

async function act(client: WebClient, body: Record<string, unknown>): Promise<void> {
  if (body.type === "event_callback") {
    const event = body.event as SlackEvent;
    if (event.type === "app_home_opened") {
      await client.views.publish({
        user_id: event.user,
        view: {
          type: "home",
          blocks: [
            { type: "header", text: { type: "plain_text", text: "Hermes home" } },
            {
              type: "section",
              text: { type: "mrkdwn", text: `Welcome, <@${event.user}>. *2* approvals wait.` },
            },
          ],
        },
      });
      return;
    }
    const isIm = event.type === "message" && event.channel_type === "im" && !event.subtype && !event.bot_id;
    if (event.type !== "app_mention" && !isIm) return;
    const threadTs = event.thread_ts ?? event.ts;
    await client.chat.postMessage({
      channel: event.channel,
      thread_ts: threadTs,
      text: REPLY_TEXT,
      blocks: replyBlocks(event.user),
    });
    await client.chat.postEphemeral({
      channel: event.channel,
      user: event.user,
      thread_ts: threadTs,
      text: "Psst: only you can see this note.",
    });
    return;
  }
  if (body.type === "block_actions") {
    const action = (body.actions as Array<{ action_id: string }>)[0];
    const container = body.container as { channel_id: string; message_ts: string };
    const user = (body.user as { id: string }).id;
    const verdict = action?.action_id === "demo.approve" ? "Approved" : "Rejected";
    await client.chat.update({
      channel: container.channel_id,
      ts: container.message_ts,
      text: `${verdict} by <@${user}>`,
      blocks: [
        {
          type: "section",
          text: { type: "mrkdwn", text: `:white_check_mark: *${verdict}* by <@${user}>` },
        },
      ],
    });
    return;
  }
  if (typeof body.command === "string") {
    await fetch(String(body.response_url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ response_type: "ephemeral", text: `You ran \`${body.command} ${body.text}\`` }),
    });
    return;
  }
}

interface SlackEvent {
  type: string;
  user: string;
  channel: string;
  ts: string;
  thread_ts?: string;
  channel_type?: string;
  subtype?: string;
  bot_id?: string;
}

/** A reply with mrkdwn, a context line and two buttons, like Hermes's approval card. */
export function replyBlocks(user: string) {
  return [
    {
      type: "section",
      text: {
        type: "mrkdwn",
        text: `Hi <@${user}>! I can run \`create_ticket\` with *priority* _high_ — see <https://example.com/docs|the docs>. Go ahead?`,
      },
    },
    { type: "context", elements: [{ type: "mrkdwn", text: "approval `ap_demo` · expires in 15 min" }] },
    {
      type: "actions",
      block_id: "demo-actions",
      elements: [
        {
          type: "button",
          action_id: "demo.approve",
          style: "primary",
          value: "ap_demo",
          text: { type: "plain_text", text: "Approve" },
          confirm: {
            title: { type: "plain_text", text: "Run create_ticket?" },
            text: { type: "mrkdwn", text: "This creates a ticket as *you*." },
            confirm: { type: "plain_text", text: "Run it" },
            deny: { type: "plain_text", text: "Cancel" },
          },
        },
        {
          type: "button",
          action_id: "demo.reject",
          style: "danger",
          value: "ap_demo",
          text: { type: "plain_text", text: "Reject" },
        },
      ],
    },
  ];
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parse(body: string, contentType: string | undefined): Record<string, unknown> {
  if ((contentType ?? "").startsWith("application/json")) return JSON.parse(body) as Record<string, unknown>;
  const form = Object.fromEntries(new URLSearchParams(body));
  return typeof form.payload === "string" ? (JSON.parse(form.payload) as Record<string, unknown>) : form;
}
