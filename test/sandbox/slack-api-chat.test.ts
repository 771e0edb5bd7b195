import type { WebAPIPlatformError, WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { approvalCardBlocks, sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

let emulator: SlackApiEmulator;
let client: WebClient;

beforeEach(async () => {
  emulator = await startSlackEmulator();
  client = sandboxWebClient(emulator);
});
afterEach(() => emulator.stop());

/** The `data` of the platform error a WebClient call rejects with. */
async function slackError(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const err = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as WebAPIPlatformError | undefined;
  expect(err?.code, "the call should fail with a platform error").toBe("slack_webapi_platform_error");
  return err?.data as unknown as Record<string, unknown>;
}

describe("chat.* through the real WebClient", () => {
  it("posts, replies in a thread, updates and reads the thread back", async () => {
    const question = postAsUser(emulator.workspace, {
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> hi",
    });
    const posted = await client.chat.postMessage({
      channel: DEMO.ops,
      thread_ts: question.ts,
      text: "Approval needed: send_message",
      blocks: approvalCardBlocks(),
      unfurl_links: false,
    });
    expect(posted).toMatchObject({
      ok: true,
      channel: DEMO.ops,
      message: { bot_id: DEMO.botId, user: DEMO.bot },
    });
    // WebClient form-encodes: nested values such as blocks arrive as JSON strings.
    const [call] = emulator.callsTo("chat.postMessage");
    expect(typeof call?.args.blocks).toBe("string");
    expect(call?.args.unfurl_links).toBe("false");

    const ts = posted.ts ?? "";
    const updated = await client.chat.update({
      channel: DEMO.ops,
      ts,
      text: "Approved by <@U0ADMIN>",
      blocks: [],
    });
    expect(updated).toMatchObject({ ok: true, ts, text: "Approved by <@U0ADMIN>" });

    const thread = await client.conversations.replies({ channel: DEMO.ops, ts: question.ts });
    expect(thread.messages?.map((m) => m.text)).toEqual(["<@U0HERMES> hi", "Approved by <@U0ADMIN>"]);
    expect(thread.messages?.[0]).toMatchObject({ reply_count: 1, latest_reply: ts, thread_ts: question.ts });
    expect(thread.messages?.[1]).toMatchObject({
      thread_ts: question.ts,
      edited: { user: DEMO.bot },
      blocks: [],
    });
  });

  it("counts replies on the parent across several posts", async () => {
    const parent = await client.chat.postMessage({ channel: DEMO.general, text: "parent" });
    for (const text of ["one", "two", "three"]) {
      await client.chat.postMessage({ channel: DEMO.general, thread_ts: parent.ts ?? "", text });
    }
    const history = await client.conversations.history({ channel: DEMO.general });
    expect(history.messages).toHaveLength(1);
    expect(history.messages?.[0]).toMatchObject({ text: "parent", reply_count: 3, reply_users: [DEMO.bot] });
  });

  it("posts ephemerals only the user sees, outside history", async () => {
    const res = await client.chat.postEphemeral({ channel: DEMO.ops, user: DEMO.user, text: "only you" });
    expect(res.ok).toBe(true);
    expect(emulator.workspace.ephemeralMessages(DEMO.ops, DEMO.user)).toEqual([
      expect.objectContaining({ ts: res.message_ts, text: "only you", ephemeral_for: DEMO.user }),
    ]);
    expect((await client.conversations.history({ channel: DEMO.ops })).messages).toEqual([]);
    emulator.workspace.addUser({ id: "U0GUEST", name: "guest" });
    expect(
      await slackError(client.chat.postEphemeral({ channel: DEMO.ops, user: "U0GUEST", text: "x" })),
    ).toMatchObject({
      error: "user_not_in_channel",
    });
  });

  it("posts to a user id as the bot's DM, and deletes its own messages", async () => {
    const res = await client.chat.postMessage({ channel: DEMO.wangLei, text: "hello" });
    expect(res.channel).toBe("D0WANGLEI");
    await client.chat.delete({ channel: "D0WANGLEI", ts: res.ts ?? "" });
    expect(emulator.workspace.history("D0WANGLEI")).toEqual([]);
  });

  it("truncates chat.postMessage text beyond 40,000 characters", async () => {
    const res = await client.chat.postMessage({ channel: DEMO.ops, text: "x".repeat(40_010) });
    expect(res.message?.text).toHaveLength(40_000);
  });
});

describe("chat.* errors, shaped like Slack's", () => {
  it("answers invalid_blocks with errors and response_metadata.messages", async () => {
    const data = await slackError(
      client.chat.postMessage({
        channel: DEMO.ops,
        text: "t",
        blocks: [{ type: "section", text: { type: "mrkdwn", text: "x".repeat(3001) } }],
      }),
    );
    expect(data).toMatchObject({
      ok: false,
      error: "invalid_blocks",
      errors: ["must be less than 3001 characters [json-pointer:/blocks/0/text/text]"],
      response_metadata: {
        messages: ["[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"],
      },
    });
  });

  const tooBig = (n: number) => Array.from({ length: n }, () => ({ type: "divider" }));
  const btn = (extra: Record<string, unknown>) => [
    {
      type: "actions",
      elements: [{ type: "button", action_id: "a", text: { type: "plain_text", text: "b" }, ...extra }],
    },
  ];
  const blockCases: Array<[string, unknown[]]> = [
    ["51 blocks", tooBig(51)],
    ["header > 150", [{ type: "header", text: { type: "plain_text", text: "h".repeat(151) } }]],
    ["11 fields", [{ type: "section", fields: tooBig(11).map(() => ({ type: "mrkdwn", text: "f" })) }]],
    ["button text > 75", btn({ text: { type: "plain_text", text: "b".repeat(76) } })],
    ["button value > 2000", btn({ value: "v".repeat(2001) })],
    ["bad style", btn({ style: "blue" })],
    ["unknown block", [{ type: "table" }]],
    [
      "duplicate block_id",
      [
        { type: "divider", block_id: "x" },
        { type: "divider", block_id: "x" },
      ],
    ],
  ];

  it.each(blockCases)("refuses %s with invalid_blocks on post and update", async (_name, blocks) => {
    expect(
      await slackError(client.chat.postMessage({ channel: DEMO.ops, text: "t", blocks: blocks as never })),
    ).toMatchObject({
      error: "invalid_blocks",
    });
    const ok = await client.chat.postMessage({ channel: DEMO.ops, text: "t" });
    expect(
      await slackError(
        client.chat.update({ channel: DEMO.ops, ts: ok.ts ?? "", text: "t", blocks: blocks as never }),
      ),
    ).toMatchObject({ error: "invalid_blocks" });
  });

  it("answers the message-level errors", async () => {
    const own = await client.chat.postMessage({ channel: DEMO.ops, text: "mine" });
    const theirs = postAsUser(emulator.workspace, { user: DEMO.user, channel: DEMO.ops, text: "not yours" });
    emulator.workspace.addChannel({ id: "C0RANDOM", name: "random", members: [DEMO.user] });
    const cases: Array<[Promise<unknown>, string]> = [
      [client.chat.update({ channel: DEMO.ops, ts: own.ts ?? "", text: "u".repeat(4001) }), "msg_too_long"],
      [client.chat.update({ channel: DEMO.ops, ts: theirs.ts, text: "edit" }), "cant_update_message"],
      [client.chat.update({ channel: DEMO.ops, ts: "1.000001", text: "edit" }), "message_not_found"],
      [client.chat.delete({ channel: DEMO.ops, ts: theirs.ts }), "cant_delete_message"],
      [client.chat.postMessage({ channel: DEMO.ops, text: "" }), "no_text"],
      [client.chat.postMessage({ channel: "C0NOPE", text: "x" }), "channel_not_found"],
      [client.chat.postMessage({ channel: "C0RANDOM", text: "x" }), "not_in_channel"],
      [client.chat.postMessage({ channel: DEMO.ops, text: "x", thread_ts: "1.000001" }), "thread_not_found"],
      [
        client.apiCall("chat.postMessage", { channel: DEMO.ops, text: "x", blocks: "{not json" }),
        "invalid_blocks_format",
      ],
      [client.apiCall("chat.fly", {}), "unknown_method"],
      [client.apiCall("apps.connections.open", {}), "not_allowed_token_type"],
    ];
    for (const [call, error] of cases) expect(await slackError(call)).toMatchObject({ ok: false, error });
    // 4000 characters is still fine for chat.update.
    await expect(
      client.chat.update({ channel: DEMO.ops, ts: own.ts ?? "", text: "u".repeat(4000) }),
    ).resolves.toMatchObject({ ok: true });
  });

  it("needs a known token: not_authed without one, invalid_auth with a wrong one", async () => {
    expect(await slackError(sandboxWebClient(emulator, { token: "" }).auth.test())).toMatchObject({
      error: "not_authed",
    });
    expect(await slackError(sandboxWebClient(emulator, { token: "xoxb-wrong" }).auth.test())).toMatchObject({
      error: "invalid_auth",
    });
  });

  it("accepts JSON bodies and the token as a form field, like Slack", async () => {
    const json = await fetch(`${emulator.url}chat.postMessage`, {
      method: "POST",
      headers: { authorization: "Bearer xoxb-test", "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ channel: DEMO.ops, text: "json", blocks: approvalCardBlocks("ap_9") }),
    }).then((r) => r.json());
    expect(json).toMatchObject({ ok: true, message: { text: "json", blocks: approvalCardBlocks("ap_9") } });
    const form = await fetch(`${emulator.url}auth.test`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "token=xoxb-test",
    }).then((r) => r.json());
    expect(form).toMatchObject({ ok: true, user_id: DEMO.bot, bot_id: DEMO.botId, team_id: DEMO.team });
    expect(emulator.callsTo("auth.test")[0]?.args).toEqual({});
  });
});
