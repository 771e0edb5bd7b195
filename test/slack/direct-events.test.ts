import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createEventsSender, type EventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { createSlackApp, type SlackAppHandle } from "../../src/slack/create-slack-app.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { startSlackEmulator } from "../helpers/slack.ts";

const SIGNING_SECRET = "direct-events-secret";
const CHANNEL = "C0OPS";

/**
 * Events API callbacks go from our receiver (`hermes-receiver.ts`) straight to the App: the real Bolt
 * app behind it, fed signed requests. Listeners must see what Bolt's receiver would have given them
 * (the body, Slack's retry headers, the guard's body hash), the record still comes before the ack,
 * and a listener's failure after the ack changes nothing for Slack; clicks keep Bolt's `ack`.
 */
describe("Events API callbacks straight to the App", () => {
  let emulator: SlackApiEmulator;
  let slack: SlackAppHandle;
  let sender: EventsSender;
  const seen: Array<{
    text: string;
    retryNum: unknown;
    retryReason: unknown;
    sha: unknown;
    recorded: boolean;
  }> = [];
  const recorded = new Set<string>();
  const clicks: string[] = [];

  beforeAll(async () => {
    emulator = await startSlackEmulator();
    const { bot } = emulator.workspace;
    slack = createSlackApp({
      botToken: "xoxb-test",
      signingSecret: SIGNING_SECRET,
      slackApiUrl: emulator.url,
      logger: silentLogger(),
      routes: [],
      bot: { userId: bot.userId, botId: bot.botId },
      events: {
        record: async (body) => {
          recorded.add(String(body.event_id));
        },
      },
    });
    slack.app.event("app_mention", async ({ event, context, body }) => {
      seen.push({
        text: event.text,
        retryNum: context.retryNum,
        retryReason: context.retryReason,
        sha: context.hermesBodySha256,
        recorded: recorded.has(String((body as { event_id?: string }).event_id)),
      });
      if (event.text.includes("explode")) throw new Error("listener failed after the ack");
    });
    slack.app.action("hermes.approve", async ({ ack, action }) => {
      await ack();
      clicks.push((action as { value?: string }).value ?? "");
    });
    const { port } = await slack.start(0, "127.0.0.1");
    sender = createEventsSender({
      url: `http://127.0.0.1:${port}/slack/events`,
      signingSecret: SIGNING_SECRET,
      slack: emulator,
    });
  });
  afterAll(async () => {
    await slack?.stop();
    await emulator?.stop();
  });

  it("a listener gets the event recorded, with the body's hash and no retry for a first delivery", async () => {
    const d = await sender.appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> first" });
    expect(d.status).toBe(200);
    expect(d.body).toBe("");
    const got = await waitFor(() => seen.find((s) => s.text.endsWith("first")), 10_000, "the listener");
    expect(got.recorded).toBe(true);
    expect(got.retryNum).toBeUndefined();
    expect(got.retryReason).toBeUndefined();
    expect(got.sha).toBe(createHash("sha256").update(d.request.body).digest("hex"));
  });

  it("Slack's retry headers reach the listener as Bolt's receiver would pass them", async () => {
    const first = await sender.appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> again" });
    await waitFor(() => seen.find((s) => s.text.endsWith("again")), 10_000, "the first delivery");
    const retry = await sender.redeliver(first, { retryNum: 2, retryReason: "http_timeout" });
    expect(retry.status).toBe(200);
    const retried = await waitFor(
      () => seen.find((s) => s.text.endsWith("again") && s.retryNum !== undefined),
      10_000,
      "the retried delivery",
    );
    expect(retried).toMatchObject({ retryNum: 2, retryReason: "http_timeout" });
  });

  it("a listener that throws after the ack leaves Slack's 200 as it was, and the next event is served", async () => {
    const d = await sender.appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> explode" });
    expect(d.status).toBe(200);
    await waitFor(() => seen.find((s) => s.text.endsWith("explode")), 10_000, "the failing listener");
    const next = await sender.appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> after" });
    expect(next.status).toBe(200);
    await waitFor(() => seen.find((s) => s.text.endsWith("after")), 10_000, "the next event");
  });

  it("clicks (form bodies) still go through Bolt's receiver and its ack", async () => {
    const posted = emulator.workspace.post({ channel: CHANNEL, user: "U0HERMES", text: "card" });
    const click = await sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: "apr_direct",
      channel: CHANNEL,
      messageTs: posted.ts,
    });
    expect(click.status).toBe(200);
    await waitFor(() => clicks.includes("apr_direct"), 10_000, "the click listener");
  });
});
