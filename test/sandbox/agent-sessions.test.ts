import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebAPIPlatformError, WebClient } from "@slack/web-api";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentSessionsOf } from "../../src/sandbox/agent-sessions.ts";
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

/** A person's DM message: the root of a session. */
const root = (text = "open a ticket") =>
  postAsUser(emulator.workspace, { user: DEMO.user, channel: DEMO.dmUser, text });

describe("agents.sessions.* through the real WebClient", () => {
  it("setStatus creates the session (title, initiator) and moves it; rename renames it", async () => {
    const m = root();
    const created = await client.agents.sessions.setStatus({
      channel_id: DEMO.dmUser,
      thread_ts: m.ts,
      status: "processing",
      title: "Open a ticket",
    });
    expect(created).toMatchObject({ ok: true, status: "processing", title: "Open a ticket" });
    expect(created.warning).toBeUndefined();
    const sessions = agentSessionsOf(emulator.workspace);
    expect(sessions.get(DEMO.dmUser, m.ts)).toMatchObject({ status: "processing", user: DEMO.user });

    // The title is only used on creation; rename changes it.
    await client.agents.sessions.setStatus({
      channel_id: DEMO.dmUser,
      thread_ts: m.ts,
      status: "suspended",
      title: "x",
    });
    expect(sessions.get(DEMO.dmUser, m.ts)).toMatchObject({ status: "suspended", title: "Open a ticket" });
    const renamed = await client.agents.sessions.rename({
      channel_id: DEMO.dmUser,
      thread_ts: m.ts,
      title: "VPN ticket",
    });
    expect(renamed).toMatchObject({ ok: true, title: "VPN ticket" });
    expect(sessions.get(DEMO.dmUser, m.ts)).toMatchObject({ status: "suspended", title: "VPN ticket" });
  });

  it("refuses what Slack refuses: arguments, status, channel, thread, rename of no session", async () => {
    const m = root();
    expect(
      await slackError(client.apiCall("agents.sessions.setStatus", { thread_ts: m.ts, status: "active" })),
    ).toMatchObject({
      error: "invalid_arguments",
    });
    expect(
      await slackError(
        client.agents.sessions.setStatus({ channel_id: DEMO.dmUser, thread_ts: m.ts, status: "busy" }),
      ),
    ).toMatchObject({ error: "invalid_arguments" });
    expect(
      await slackError(
        client.agents.sessions.setStatus({ channel_id: "D0NOBODY", thread_ts: m.ts, status: "active" }),
      ),
    ).toMatchObject({ error: "channel_not_found" });
    expect(
      await slackError(
        client.agents.sessions.setStatus({
          channel_id: DEMO.dmUser,
          thread_ts: "1.000001",
          status: "active",
        }),
      ),
    ).toMatchObject({ error: "invalid_thread_ts" });
    expect(
      await slackError(
        client.agents.sessions.rename({ channel_id: DEMO.dmUser, thread_ts: m.ts, title: "t" }),
      ),
    ).toMatchObject({ error: "session_not_found" });
    expect(
      await slackError(
        client.agents.sessions.setStatus({
          channel_id: DEMO.dmUser,
          thread_ts: m.ts,
          status: "active",
          title: "x".repeat(201),
        }),
      ),
    ).toMatchObject({ error: "invalid_arguments" });
  });

  it("answers missing_scope without assistant:write", async () => {
    const m = root();
    emulator.scopes.delete("assistant:write");
    expect(
      await slackError(
        client.agents.sessions.setStatus({ channel_id: DEMO.dmUser, thread_ts: m.ts, status: "active" }),
      ),
    ).toMatchObject({ error: "missing_scope", needed: "assistant:write" });
  });

  it("warns when the app does not subscribe to agent_session_stopped (Slack then shows no Stop)", async () => {
    const m = root();
    agentSessionsOf(emulator.workspace).settings.stopEvent = false;
    const answer = await client.agents.sessions.setStatus({
      channel_id: DEMO.dmUser,
      thread_ts: m.ts,
      status: "processing",
    });
    expect(answer).toMatchObject({
      ok: true,
      warning: "missing_agent_session_stopped_event_subscription",
      response_metadata: { warnings: ["missing_agent_session_stopped_event_subscription"] },
    });
  });

  it("is an unknown method for an app installed without the agent view", async () => {
    await emulator.stop();
    emulator = await startSlackEmulator({ agentApp: { agentView: false } });
    client = sandboxWebClient(emulator);
    const m = root();
    expect(
      await slackError(
        client.agents.sessions.setStatus({ channel_id: DEMO.dmUser, thread_ts: m.ts, status: "active" }),
      ),
    ).toMatchObject({ error: "unknown_method" });
    expect(
      await slackError(
        client.agents.sessions.rename({ channel_id: DEMO.dmUser, thread_ts: m.ts, title: "t" }),
      ),
    ).toMatchObject({ error: "unknown_method" });
  });

  it("keeps a Messages tab's suggested prompts (no thread_ts)", async () => {
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: DEMO.dmUser,
      title: "Try asking",
      prompts: [{ title: "Open a ticket…", message: "Help me open a ticket." }],
    });
    expect(agentSessionsOf(emulator.workspace).promptsOf(DEMO.dmUser)).toEqual({
      channel: DEMO.dmUser,
      title: "Try asking",
      prompts: [{ title: "Open a ticket…", message: "Help me open a ticket." }],
    });
  });
});

describe("the agent view's events, as Slack delivers them", () => {
  let receiver: Server;
  let url = "";
  const bodies: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let text = "";
      req.on("data", (c: Buffer) => {
        text += c.toString();
      });
      req.on("end", () => {
        bodies.push(JSON.parse(text) as Record<string, unknown>);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(() => new Promise<void>((r) => receiver.close(() => r())));
  const sender = () => createEventsSender({ url, signingSecret: "s", slack: emulator });
  const lastEvent = () => bodies.at(-1)!.event as Record<string, unknown>;

  it("message.im with app_context: the DM message, recorded, with the entities the user views", async () => {
    const d = await sender().agentMessage({
      user: DEMO.user,
      text: "what is going on here?",
      viewing: { channel: DEMO.ops, messageTs: "1700000000.000100" },
    });
    expect(lastEvent()).toMatchObject({
      type: "message",
      channel_type: "im",
      channel: DEMO.dmUser,
      user: DEMO.user,
      text: "what is going on here?",
      app_context: {
        entities: [
          { type: "channel", channel_id: DEMO.ops, team_id: DEMO.team },
          { type: "message", channel_id: DEMO.ops, message_ts: "1700000000.000100" },
        ],
      },
    });
    expect(lastEvent().thread_ts).toBeUndefined();
    expect(emulator.workspace.getMessage(DEMO.dmUser, d.message!.ts)?.text).toBe("what is going on here?");
  });

  it("app_context_changed carries context.entities; agent_session_stopped the thread and its streaming messages", async () => {
    await sender().appContextChanged({ user: DEMO.user, viewing: { canvas: "F0CANVAS1" } });
    expect(lastEvent()).toMatchObject({
      type: "app_context_changed",
      user: DEMO.user,
      channel: DEMO.dmUser,
      context: { entities: [{ type: "canvas", canvas_id: "F0CANVAS1" }] },
    });

    const m = root("long job");
    const stream = await client.chat.startStream({ channel: DEMO.dmUser, thread_ts: m.ts });
    await sender().agentSessionStopped({ user: DEMO.user, channel: DEMO.dmUser, threadTs: m.ts });
    expect(lastEvent()).toMatchObject({
      type: "agent_session_stopped",
      user: DEMO.user,
      channel: DEMO.dmUser,
      thread_ts: m.ts,
      streaming_message_ts: [stream.ts],
    });
  });
});
