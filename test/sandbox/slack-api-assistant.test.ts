import type { WebAPIPlatformError, WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantThreadsOf } from "../../src/sandbox/assistant-threads.ts";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

let emulator: SlackApiEmulator;
let client: WebClient;

beforeEach(async () => {
  emulator = await startSlackEmulator();
  client = sandboxWebClient(emulator);
});
afterEach(() => emulator.stop());

async function slackError(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const err = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as WebAPIPlatformError | undefined;
  expect(err?.code, "the call should fail with a platform error").toBe("slack_webapi_platform_error");
  return err?.data as unknown as Record<string, unknown>;
}

const threads = () => assistantThreadsOf(emulator.workspace);
const open = (viewing?: string) => threads().open(DEMO.user, viewing);

describe("assistant.threads.* through the real WebClient", () => {
  it("setStatus sets the status line with its loading messages; the bot's reply in the thread clears it", async () => {
    const t = open(DEMO.ops);
    await client.assistant.threads.setStatus({
      channel_id: t.channel,
      thread_ts: t.threadTs,
      status: "is running create_ticket…",
      loading_messages: ["Running create_ticket…"],
    });
    expect(threads().get(t.channel, t.threadTs)).toMatchObject({
      status: "is running create_ticket…",
      loadingMessages: ["Running create_ticket…"],
    });
    await client.chat.postMessage({ channel: t.channel, thread_ts: t.threadTs, text: "Done." });
    expect(threads().get(t.channel, t.threadTs)).toMatchObject({ status: "", loadingMessages: [] });

    // A person's reply does not clear it; an empty status does.
    await client.assistant.threads.setStatus({
      channel_id: t.channel,
      thread_ts: t.threadTs,
      status: "is thinking…",
    });
    postAsUser(emulator.workspace, {
      user: DEMO.user,
      channel: t.channel,
      text: "and?",
      threadTs: t.threadTs,
    });
    expect(threads().get(t.channel, t.threadTs)!.status).toBe("is thinking…");
    await client.assistant.threads.setStatus({ channel_id: t.channel, thread_ts: t.threadTs, status: "" });
    expect(threads().get(t.channel, t.threadTs)!.status).toBe("");
  });

  it("setSuggestedPrompts and setTitle store what the split view shows", async () => {
    const t = open();
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: t.channel,
      thread_ts: t.threadTs,
      title: "Try asking",
      prompts: [{ title: "Open a ticket…", message: "Help me open a ticket." }],
    });
    await client.assistant.threads.setTitle({
      channel_id: t.channel,
      thread_ts: t.threadTs,
      title: "VPN down",
    });
    expect(threads().get(t.channel, t.threadTs)).toMatchObject({
      title: "VPN down",
      prompts: {
        title: "Try asking",
        prompts: [{ title: "Open a ticket…", message: "Help me open a ticket." }],
      },
    });
  });

  it("refuses missing arguments with invalid_arguments", async () => {
    const t = open();
    const noStatus = await slackError(
      client.apiCall("assistant.threads.setStatus", { channel_id: t.channel, thread_ts: t.threadTs }),
    );
    expect(noStatus).toMatchObject({
      error: "invalid_arguments",
      response_metadata: { messages: ["[ERROR] missing required field: status"] },
    });
    const noThread = await slackError(
      client.apiCall("assistant.threads.setTitle", { channel_id: t.channel, title: "x" }),
    );
    expect(noThread.response_metadata).toMatchObject({
      messages: ["[ERROR] missing required field: thread_ts"],
    });
    const noTitle = await slackError(
      client.apiCall("assistant.threads.setTitle", { channel_id: t.channel, thread_ts: t.threadTs }),
    );
    expect(noTitle.error).toBe("invalid_arguments");
    const noPrompts = await slackError(
      client.apiCall("assistant.threads.setSuggestedPrompts", {
        channel_id: t.channel,
        thread_ts: t.threadTs,
      }),
    );
    expect(noPrompts.response_metadata).toMatchObject({
      messages: ["[ERROR] missing required field: prompts"],
    });
  });

  it("channel_not_found for a channel that is no DM of the bot; invalid_thread_ts for a ts that is no assistant thread", async () => {
    const t = open();
    const args = { thread_ts: t.threadTs, status: "is thinking…" };
    expect(
      (await slackError(client.assistant.threads.setStatus({ ...args, channel_id: "D0NOPE" }))).error,
    ).toBe("channel_not_found");
    expect(
      (await slackError(client.assistant.threads.setStatus({ ...args, channel_id: DEMO.ops }))).error,
    ).toBe("channel_not_found");
    // A plain message of the same DM is a thread, but not an assistant thread.
    const plain = postAsUser(emulator.workspace, { user: DEMO.user, channel: t.channel, text: "hi" });
    expect(
      (
        await slackError(
          client.assistant.threads.setStatus({ ...args, channel_id: t.channel, thread_ts: plain.ts }),
        )
      ).error,
    ).toBe("invalid_thread_ts");
    expect(
      (
        await slackError(
          client.assistant.threads.setTitle({ channel_id: t.channel, thread_ts: "1.000001", title: "x" }),
        )
      ).error,
    ).toBe("invalid_thread_ts");
  });

  it("prompts: at most 4, each with a title and a message; loading_messages at most 10 strings", async () => {
    const t = open();
    const prompt = { title: "t", message: "m" };
    const five = await slackError(
      client.assistant.threads.setSuggestedPrompts({
        channel_id: t.channel,
        thread_ts: t.threadTs,
        prompts: [prompt, prompt, prompt, prompt, prompt],
      }),
    );
    expect(five).toMatchObject({ error: "invalid_arguments" });
    expect(five.response_metadata).toMatchObject({
      messages: ["[ERROR] no more than 4 items allowed [json-pointer:/prompts]"],
    });
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: t.channel,
      thread_ts: t.threadTs,
      prompts: [prompt, prompt, prompt, prompt],
    });
    const noMessage = await slackError(
      client.assistant.threads.setSuggestedPrompts({
        channel_id: t.channel,
        thread_ts: t.threadTs,
        prompts: [{ title: "only a title" } as never],
      }),
    );
    expect(noMessage.response_metadata).toMatchObject({
      messages: ["[ERROR] missing required field: message [json-pointer:/prompts/0/message]"],
    });
    const eleven = await slackError(
      client.assistant.threads.setStatus({
        channel_id: t.channel,
        thread_ts: t.threadTs,
        status: "is thinking…",
        loading_messages: Array.from({ length: 11 }, (_, i) => `m${i}`),
      }),
    );
    expect(eleven.error).toBe("invalid_arguments");
    expect(threads().get(t.channel, t.threadTs)!.status).toBe("");
  });

  it("setSuggestedPrompts and setTitle are tier 4 when rate limits are on", async () => {
    await emulator.stop();
    const clock = { now: Date.UTC(2030, 0, 1) };
    emulator = await startSlackEmulator({
      rateLimits: { burst: { "assistant.threads.setTitle": 1 }, now: () => clock.now },
    });
    client = sandboxWebClient(emulator, { rejectRateLimitedCalls: true });
    const t = open();
    await client.assistant.threads.setTitle({ channel_id: t.channel, thread_ts: t.threadTs, title: "a" });
    // 100 per minute: the next one is 0.6 s away, asked as 1 whole second.
    await expect(
      client.assistant.threads.setTitle({ channel_id: t.channel, thread_ts: t.threadTs, title: "b" }),
    ).rejects.toMatchObject({ code: "slack_webapi_rate_limited_error", retryAfter: 1 });
    clock.now += 600;
    await client.assistant.threads.setTitle({ channel_id: t.channel, thread_ts: t.threadTs, title: "c" });
    expect(threads().get(t.channel, t.threadTs)!.title).toBe("c");
  });
});

describe("assistant thread events from the events sender", () => {
  it("assistant_thread_started and assistant_thread_context_changed carry the thread and the viewed channel", async () => {
    const received: Array<Record<string, unknown>> = [];
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as { port: number }).port;
      const sender = createEventsSender({
        url: `http://127.0.0.1:${port}/slack/events`,
        signingSecret: "s",
        slack: emulator,
      });
      const { thread } = await sender.assistantThreadStarted({ user: DEMO.user, viewing: DEMO.ops });
      expect(thread.channel).toBe(DEMO.dmUser);
      // The thread's root is in the person's DM with the bot, as in Slack.
      expect(emulator.workspace.getMessage(DEMO.dmUser, thread.threadTs)).toMatchObject({
        subtype: "assistant_app_thread",
      });
      await sender.assistantThreadContextChanged({
        channel: thread.channel,
        threadTs: thread.threadTs,
        viewing: DEMO.general,
      });
      expect(received.map((b) => b.event)).toEqual([
        {
          type: "assistant_thread_started",
          assistant_thread: {
            user_id: DEMO.user,
            context: { channel_id: DEMO.ops, team_id: DEMO.team, enterprise_id: null },
            channel_id: DEMO.dmUser,
            thread_ts: thread.threadTs,
          },
          event_ts: expect.any(String),
        },
        {
          type: "assistant_thread_context_changed",
          assistant_thread: {
            user_id: DEMO.user,
            context: { channel_id: DEMO.general, team_id: DEMO.team, enterprise_id: null },
            channel_id: DEMO.dmUser,
            thread_ts: thread.threadTs,
          },
          event_ts: expect.any(String),
        },
      ]);
      expect(received[0]).toMatchObject({ type: "event_callback", team_id: DEMO.team });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
