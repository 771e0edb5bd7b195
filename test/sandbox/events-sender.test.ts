import type { AddressInfo } from "node:net";
import { App } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createEventsSender, type EventsSender } from "../../src/sandbox/events-sender.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import {
  approvalCardBlocks,
  quietSlackLogger,
  sandboxWebClient,
  startSlackEmulator,
} from "../helpers/slack.ts";

const signingSecret = "sandbox-signing-secret";

interface Seen {
  event: { type: string; subtype?: string };
  retryNum?: number;
  retryReason?: string;
  eventId?: string;
}

let emulator: SlackApiEmulator;
let app: App;
let sender: EventsSender;
let receiverUrl = "";
let client: WebClient;
const seen: Seen[] = [];
const actions: Array<Record<string, unknown>> = [];
const commands: Array<Record<string, string>> = [];

async function eventually<T>(find: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  emulator = await startSlackEmulator();
  client = sandboxWebClient(emulator);
  // The production configuration, pointed at the emulator: same receiver, same signature checks.
  app = new App({
    token: "xoxb-test",
    signingSecret,
    clientOptions: { slackApiUrl: emulator.url, retryConfig: { retries: 0 } },
    logger: quietSlackLogger(),
  });
  app.event("app_mention", async ({ event, say, context, body }) => {
    seen.push({
      event,
      retryNum: context.retryNum,
      retryReason: context.retryReason,
      eventId: body.event_id,
    });
    await say({ text: "On it.", thread_ts: event.thread_ts ?? event.ts });
  });
  app.event("message", async ({ event }) => {
    seen.push({ event });
  });
  app.event("app_home_opened", async ({ event, client: bolt }) => {
    seen.push({ event });
    await bolt.views.publish({
      user_id: event.user,
      view: { type: "home", blocks: [{ type: "section", text: { type: "mrkdwn", text: "Hi" } }] },
    });
  });
  app.action("hermes.approve", async ({ ack, body, respond }) => {
    await ack();
    actions.push(body as unknown as Record<string, unknown>);
    await respond({ replace_original: true, text: "Approved" });
  });
  app.command("/hermes", async ({ ack, command, respond }) => {
    await ack();
    commands.push(command as unknown as Record<string, string>);
    await respond({ response_type: "ephemeral", text: `You asked: ${command.text}` });
  });
  const server = await app.start(0);
  const { port } = server.address() as AddressInfo;
  receiverUrl = `http://127.0.0.1:${port}/slack/events`;
  sender = createEventsSender({ url: receiverUrl, signingSecret, slack: emulator });
});

afterAll(async () => {
  await app.stop();
  await emulator.stop();
});

beforeEach(() => {
  seen.length = 0;
});

describe("events sender → a real Bolt app → the emulator", () => {
  it("delivers a signed app_mention that Bolt accepts; the reply lands in the thread", async () => {
    const delivery = await sender.appMention({
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> open a ticket",
    });
    expect(delivery.status).toBe(200);
    expect(delivery.eventId).toMatch(/^Ev[0-9A-F]{10}$/);
    const { event } = await eventually(() => seen.find((s) => s.event.type === "app_mention"));
    expect(event).toMatchObject({
      type: "app_mention",
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> open a ticket",
      ts: delivery.message?.ts,
      team: DEMO.team,
    });
    expect(delivery.payload).toMatchObject({
      type: "event_callback",
      team_id: DEMO.team,
      api_app_id: DEMO.appId,
    });
    const thread = await eventually(() => {
      const replies = emulator.workspace.replies(DEMO.ops, delivery.message?.ts ?? "");
      return replies && replies.length === 2 ? replies : undefined;
    });
    expect(thread[1]).toMatchObject({ text: "On it.", bot_id: DEMO.botId, thread_ts: delivery.message?.ts });
    expect(emulator.callsTo("auth.test").length).toBeGreaterThan(0);
  });

  it("routes what a user types: message.im in a DM, app_mention only when mentioned in a channel", async () => {
    const quiet = await sender.userSays({ user: DEMO.wangLei, channel: DEMO.general, text: "lunch?" });
    expect(quiet.delivery).toBeUndefined();
    expect(quiet.message.text).toBe("lunch?");

    const dm = await sender.userSays({ user: DEMO.user, channel: "D0USER1", text: "what time is it?" });
    expect(dm.delivery?.status).toBe(200);
    const im = await eventually(() => seen.find((s) => s.event.type === "message"));
    expect(im.event).toMatchObject({
      type: "message",
      channel_type: "im",
      channel: "D0USER1",
      user: DEMO.user,
    });

    const mention = await sender.userSays({
      user: DEMO.user,
      channel: DEMO.general,
      text: "<@U0HERMES> and make it high priority",
      threadTs: quiet.message.ts,
    });
    expect(mention.delivery?.payload).toMatchObject({
      event: { type: "app_mention", thread_ts: quiet.message.ts, parent_user_id: DEMO.wangLei },
    });
  });

  it("delivers message subtypes the bot should ignore", async () => {
    const deliveries = await Promise.all([
      sender.message({ subtype: "bot_message", botId: "B0OTHER", channel: "D0USER1", text: "beep" }),
      sender.message({
        subtype: "message_changed",
        channel: "D0USER1",
        user: DEMO.user,
        messageTs: "1764420120.000400",
        text: "edited text",
        previousText: "original text",
      }),
      sender.message({
        subtype: "message_deleted",
        channel: DEMO.ops,
        user: DEMO.user,
        deletedTs: "1.000001",
        previousText: "x",
      }),
      sender.message({ subtype: "channel_join", channel: DEMO.ops, user: DEMO.wangLei }),
    ]);
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200]);
    const subtypes = await eventually(() =>
      seen.length === 4 ? seen.map((s) => s.event.subtype) : undefined,
    );
    expect(subtypes.sort()).toEqual(["bot_message", "channel_join", "message_changed", "message_deleted"]);
    expect(seen.find((s) => s.event.subtype === "message_changed")?.event).toMatchObject({
      channel_type: "im",
      message: { text: "edited text" },
      previous_message: { text: "original text" },
    });
  });

  it("sends a block_actions click Bolt parses; respond() replaces the card through the response_url", async () => {
    const card = await client.chat.postMessage({
      channel: "D0USER1",
      text: "Approval needed",
      blocks: approvalCardBlocks("ap_7") as never,
    });
    const delivery = await sender.blockAction({
      user: DEMO.user,
      actionId: "hermes.approve",
      channel: "D0USER1",
      messageTs: card.ts ?? "",
    });
    expect(delivery.status).toBe(200);
    expect(delivery.request.contentType).toBe("application/x-www-form-urlencoded");
    expect(delivery.request.body.startsWith("payload=")).toBe(true);
    const body = await eventually(() => actions.at(-1));
    expect(body).toMatchObject({
      type: "block_actions",
      user: { id: DEMO.user, username: "li.ming" },
      container: { type: "message", message_ts: card.ts, channel_id: "D0USER1", is_ephemeral: false },
      channel: { id: "D0USER1", name: "directmessage" },
      message: { ts: card.ts, bot_id: DEMO.botId, text: "Approval needed" },
      actions: [
        {
          action_id: "hermes.approve",
          block_id: "approval-ap_7",
          value: "ap_7",
          style: "primary",
          type: "button",
        },
      ],
    });
    expect(String(body.response_url)).toContain(`${emulator.origin}/response/`);
    await eventually(() =>
      emulator.workspace.getMessage("D0USER1", card.ts ?? "")?.text === "Approved" ? true : undefined,
    );
  });

  it("sends /hermes as a form body; respond() posts an ephemeral answer", async () => {
    const delivery = await sender.slashCommand({
      user: DEMO.admin,
      channel: DEMO.ops,
      text: "audit tool:create_ticket since:24h",
    });
    expect(delivery.status).toBe(200);
    const command = await eventually(() => commands.at(-1));
    expect(command).toMatchObject({
      command: "/hermes",
      text: "audit tool:create_ticket since:24h",
      user_id: DEMO.admin,
      user_name: "zhang.wei",
      channel_id: DEMO.ops,
      channel_name: "ops",
      team_id: DEMO.team,
      api_app_id: DEMO.appId,
    });
    const [answer] = await eventually(() => {
      const list = emulator.workspace.ephemeralMessages(DEMO.ops, DEMO.admin);
      return list.length > 0 ? list : undefined;
    });
    expect(answer?.text).toBe("You asked: audit tool:create_ticket since:24h");
  });

  it("sends app_home_opened; the app publishes the Home view to the emulator", async () => {
    expect((await sender.appHomeOpened({ user: DEMO.admin })).status).toBe(200);
    const { event } = await eventually(() => seen.find((s) => s.event.type === "app_home_opened"));
    expect(event).toMatchObject({ user: DEMO.admin, channel: "D0ADMIN", tab: "home" });
    await eventually(() => emulator.workspace.getView(DEMO.admin));
  });

  it("is refused with 401 for a bad signature or an old timestamp, and nothing runs", async () => {
    const bad = await sender.appMention(
      { user: DEMO.user, channel: DEMO.ops, text: "<@U0HERMES> bad" },
      { badSignature: true },
    );
    const old = await sender.appMention(
      { user: DEMO.user, channel: DEMO.ops, text: "<@U0HERMES> old" },
      { oldTimestamp: true },
    );
    expect([bad.status, old.status]).toEqual([401, 401]);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual([]);
  });

  it("redelivers with the same event_id and x-slack-retry-* headers Bolt exposes as context", async () => {
    const first = await sender.appMention({ user: DEMO.user, channel: DEMO.ops, text: "<@U0HERMES> once" });
    const retry = await sender.redeliver(first, { retryNum: 1, retryReason: "http_timeout" });
    expect(retry.status).toBe(200);
    expect(retry.request.headers).toMatchObject({
      "x-slack-retry-num": "1",
      "x-slack-retry-reason": "http_timeout",
    });
    const both = await eventually(() => (seen.length === 2 ? seen : undefined));
    expect(both.map((s) => [s.eventId, s.retryNum, s.retryReason])).toEqual([
      [first.eventId, undefined, undefined],
      [first.eventId, 1, "http_timeout"],
    ]);
  });

  it("works without a workspace: fixture-shaped payloads, a pinned event_time, real-clock signatures", async () => {
    const fixed = createEventsSender({
      url: receiverUrl,
      signingSecret,
      now: () => 1_764_420_000_000,
    });
    const delivery = await fixed.appMention({
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> open a ticket",
      ts: "1764420000.000100",
    });
    expect(delivery.status).toBe(200);
    expect(delivery.payload).toMatchObject({
      token: "ZZZZZZWSxiZZZ2yIvs3peJ",
      team_id: "T0001",
      api_app_id: "A0HERMES1",
      type: "event_callback",
      event_time: 1764420000,
      authorizations: [{ team_id: "T0001", user_id: "U0HERMES", is_bot: true }],
      event: {
        type: "app_mention",
        ts: "1764420000.000100",
        event_ts: "1764420000.000100",
        channel: DEMO.ops,
      },
    });
    await eventually(() => seen.find((s) => s.event.type === "app_mention"));
  });

  it("answers the url_verification handshake through Bolt", async () => {
    const res = await sender.urlVerification("abc123");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ challenge: "abc123" });
  });
});
