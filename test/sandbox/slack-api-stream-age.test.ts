import type { WebAPIPlatformError, WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { DEMO, seedDemoWorkspace } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { STREAM_MAX_AGE_MS } from "../../src/sandbox/workspace.ts";
import { sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

let emulator: SlackApiEmulator;
let client: WebClient;
/** The workspace's clock, moved by the tests. */
let clock = Date.UTC(2026, 0, 5, 9, 0, 0);

beforeEach(async () => {
  emulator = await startSlackEmulator({ workspace: seedDemoWorkspace({ now: () => clock }) });
  client = sandboxWebClient(emulator);
});
afterEach(() => emulator.stop());

async function errorOf(call: Promise<unknown>): Promise<unknown> {
  const err = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as WebAPIPlatformError | undefined;
  return err?.data?.error;
}

async function startedStream(): Promise<string> {
  const q = postAsUser(emulator.workspace, {
    user: DEMO.user,
    channel: DEMO.ops,
    text: "<@U0HERMES> report?",
  });
  const started = await client.chat.startStream({
    channel: DEMO.ops,
    thread_ts: q.ts,
    recipient_user_id: DEMO.user,
    recipient_team_id: DEMO.team,
    markdown_text: "The report ",
  });
  return started.ts!;
}

describe("a streamed message's age limit (Slack ends a stream after about five minutes)", () => {
  it("defaults to five minutes: appends go on until then, later appends and the stop are refused, the message keeps its text", async () => {
    expect(emulator.workspace.streamMaxAgeMs).toBe(STREAM_MAX_AGE_MS);
    expect(STREAM_MAX_AGE_MS).toBe(5 * 60_000);
    const ts = await startedStream();
    clock += STREAM_MAX_AGE_MS;
    expect((await client.chat.appendStream({ channel: DEMO.ops, ts, markdown_text: "is ready" })).ok).toBe(
      true,
    );
    clock += 1;
    expect(await errorOf(client.chat.appendStream({ channel: DEMO.ops, ts, markdown_text: " now." }))).toBe(
      "message_not_in_streaming_state",
    );
    expect(await errorOf(client.chat.stopStream({ channel: DEMO.ops, ts }))).toBe(
      "message_not_in_streaming_state",
    );
    const message = emulator.workspace.getMessage(DEMO.ops, ts);
    expect(message?.text).toBe("The report is ready");
    expect(message?.stream?.state).toBe("stopped");
    // Ended, not gone: the app may still replace it.
    expect((await client.chat.update({ channel: DEMO.ops, ts, text: "The report is ready now." })).ok).toBe(
      true,
    );
  });

  it("is settable: a stream older than the workspace's limit refuses a stop at once", async () => {
    emulator.workspace.streamMaxAgeMs = 300;
    const ts = await startedStream();
    clock += 300;
    expect((await client.chat.appendStream({ channel: DEMO.ops, ts, markdown_text: "is ready." })).ok).toBe(
      true,
    );
    clock += 1;
    expect(await errorOf(client.chat.stopStream({ channel: DEMO.ops, ts }))).toBe(
      "message_not_in_streaming_state",
    );
    expect(emulator.workspace.getMessage(DEMO.ops, ts)?.stream?.state).toBe("stopped");
    // A new stream in the same thread starts afresh.
    const next = await client.chat.startStream({
      channel: DEMO.ops,
      thread_ts: emulator.workspace.getMessage(DEMO.ops, ts)?.thread_ts ?? "",
      recipient_user_id: DEMO.user,
      recipient_team_id: DEMO.team,
      markdown_text: "More.",
    });
    expect((await client.chat.stopStream({ channel: DEMO.ops, ts: next.ts! })).ok).toBe(true);
  });
});
