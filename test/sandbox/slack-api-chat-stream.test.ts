import type { WebAPIPlatformError, WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import type { WorkspaceEvent } from "../../src/sandbox/workspace-types.ts";
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

function question(channel: string) {
  return postAsUser(emulator.workspace, { user: DEMO.user, channel, text: "<@U0HERMES> open tickets?" });
}

describe("chat.startStream / appendStream / stopStream through the real WebClient", () => {
  it("grows a message in a thread, task cards updated by id, and finalizes it with blocks", async () => {
    const q = question(DEMO.ops);
    const events: WorkspaceEvent[] = [];
    emulator.workspace.subscribe((e) => events.push(e));
    const started = await client.chat.startStream({
      channel: DEMO.ops,
      thread_ts: q.ts,
      recipient_user_id: DEMO.user,
      recipient_team_id: DEMO.team,
      chunks: [{ type: "task_update", id: "call_1", title: "search_tickets", status: "in_progress" }],
    });
    const ts = started.ts!;
    await client.chat.appendStream({
      channel: DEMO.ops,
      ts,
      chunks: [
        { type: "task_update", id: "call_1", title: "search_tickets", status: "complete", output: "3 found" },
        { type: "markdown_text", text: "Three tickets " },
      ],
    } as Parameters<WebClient["chat"]["appendStream"]>[0]);
    await client.chat.appendStream({ channel: DEMO.ops, ts, markdown_text: "are open." });
    const growing = await client.conversations.replies({ channel: DEMO.ops, ts: q.ts });
    const live = growing.messages?.find((m) => m.ts === ts) as Record<string, unknown>;
    expect(live.text).toBe("Three tickets are open.");
    expect(live.stream).toMatchObject({
      state: "streaming",
      tasks: [{ id: "call_1", title: "search_tickets", status: "complete", output: "3 found" }],
    });

    const feedback = [{ type: "context", elements: [{ type: "mrkdwn", text: "done" }] }];
    await client.chat.stopStream({ channel: DEMO.ops, ts, blocks: feedback });
    const final = (await client.conversations.replies({ channel: DEMO.ops, ts: q.ts })).messages?.find(
      (m) => m.ts === ts,
    ) as Record<string, unknown>;
    expect(final).toMatchObject({
      text: "Three tickets are open.",
      blocks: feedback,
      stream: { state: "stopped" },
    });
    // Every append reached subscribers (the page's event stream) as an update of the same message.
    expect(events.filter((e) => e.type === "message_updated").map((e) => e.type)).toHaveLength(3);

    expect(
      await slackError(client.chat.appendStream({ channel: DEMO.ops, ts, markdown_text: "more" })),
    ).toMatchObject({
      error: "message_not_in_streaming_state",
    });
    expect(await slackError(client.chat.stopStream({ channel: DEMO.ops, ts }))).toMatchObject({
      error: "message_not_in_streaming_state",
    });
  });

  it("requires the recipient in channels, not in DMs", async () => {
    const q = question(DEMO.ops);
    expect(await slackError(client.chat.startStream({ channel: DEMO.ops, thread_ts: q.ts }))).toMatchObject({
      error: "missing_recipient_user_id",
    });
    expect(
      await slackError(
        client.chat.startStream({ channel: DEMO.ops, thread_ts: q.ts, recipient_user_id: DEMO.user }),
      ),
    ).toMatchObject({ error: "missing_recipient_team_id" });
    const dm = question(DEMO.dmUser);
    const ok = await client.chat.startStream({ channel: DEMO.dmUser, thread_ts: dm.ts, markdown_text: "Hi" });
    expect(ok.ok).toBe(true);
  });

  it("refuses invalid chunks, overlong markdown_text and unknown messages with Slack's errors", async () => {
    const q = question(DEMO.dmUser);
    const { ts } = await client.chat.startStream({ channel: DEMO.dmUser, thread_ts: q.ts });
    const append = (args: Record<string, unknown>) =>
      slackError(client.apiCall("chat.appendStream", { channel: DEMO.dmUser, ts, ...args }));
    expect(await append({ chunks: JSON.stringify([{ type: "picture" }]) })).toMatchObject({
      error: "invalid_chunks",
    });
    expect(await append({ chunks: "not json" })).toMatchObject({ error: "invalid_chunks" });
    expect(
      await append({
        chunks: JSON.stringify([{ type: "task_update", id: "t", title: "x", status: "done" }]),
      }),
    ).toMatchObject({ error: "invalid_arguments" });
    expect(await append({ markdown_text: "x".repeat(12_001) })).toMatchObject({ error: "msg_too_long" });
    expect(await append({})).toMatchObject({ error: "invalid_arguments" });
    expect(
      await slackError(
        client.chat.appendStream({ channel: DEMO.dmUser, ts: "1.000001", markdown_text: "x" }),
      ),
    ).toMatchObject({ error: "message_not_found" });
    // A refused call changed nothing.
    const stored = emulator.workspace.getMessage(DEMO.dmUser, ts!);
    expect(stored).toMatchObject({ text: "", stream: { state: "streaming", tasks: [] } });
  });

  it("answers unknown_method for a test that takes the methods away, until cleared", async () => {
    emulator.faults.withoutMethods("chat.startStream", "chat.appendStream", "chat.stopStream");
    const q = question(DEMO.dmUser);
    for (let i = 0; i < 2; i++)
      expect(
        await slackError(client.chat.startStream({ channel: DEMO.dmUser, thread_ts: q.ts })),
      ).toMatchObject({
        error: "unknown_method",
      });
    emulator.faults.clear();
    expect((await client.chat.startStream({ channel: DEMO.dmUser, thread_ts: q.ts })).ok).toBe(true);
  });
});
