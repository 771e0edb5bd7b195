import type { WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

describe("conversations.* and users.*", () => {
  it("conversations.list: public channels by default, private ones only where the bot is, DMs when asked, paged", async () => {
    const ws = emulator.workspace;
    ws.addChannel({ id: "C0PRIVBOT", name: "bot-private", members: [DEMO.bot], isPrivate: true });
    ws.addChannel({ id: "C0PRIVNOT", name: "no-bot-private", members: [DEMO.admin], isPrivate: true });
    const ids = async (args: Record<string, unknown>) =>
      ((await client.conversations.list(args)).channels ?? []).map((c) => c.id);
    expect(await ids({})).toEqual([DEMO.general, DEMO.ops]);
    expect(await ids({ types: "public_channel,private_channel" })).toEqual([
      DEMO.general,
      DEMO.ops,
      "C0PRIVBOT",
    ]);
    expect(await ids({ types: "im" })).toEqual([DEMO.dmAdmin, DEMO.dmUser, DEMO.dmWangLei]);
    const first = await client.conversations.list({ limit: 1 });
    expect(first.channels?.map((c) => [c.id, c.name, c.is_private])).toEqual([
      [DEMO.general, "general", false],
    ]);
    const second = await client.conversations.list({
      limit: 1,
      cursor: first.response_metadata?.next_cursor ?? "",
    });
    expect(second.channels?.map((c) => c.id)).toEqual([DEMO.ops]);
    expect(second.response_metadata?.next_cursor).toBe("");
  });

  it("pages history newest first, and replies parent first", async () => {
    const ws = emulator.workspace;
    const posted = ["a", "b", "c", "d", "e"].map((text) =>
      postAsUser(ws, { user: DEMO.user, channel: DEMO.ops, text }),
    );
    const first = await client.conversations.history({ channel: DEMO.ops, limit: 2 });
    expect(first.messages?.map((m) => m.text)).toEqual(["e", "d"]);
    expect(first.has_more).toBe(true);
    const second = await client.conversations.history({
      channel: DEMO.ops,
      limit: 2,
      cursor: first.response_metadata?.next_cursor ?? "",
    });
    expect(second.messages?.map((m) => m.text)).toEqual(["c", "b"]);
    const since = await client.conversations.history({ channel: DEMO.ops, oldest: posted[2]?.ts ?? "" });
    expect(since.messages?.map((m) => m.text)).toEqual(["e", "d"]);

    const root = posted[0]?.ts ?? "";
    for (const text of ["r1", "r2", "r3"])
      postAsUser(ws, { user: DEMO.wangLei, channel: DEMO.ops, text, threadTs: root });
    const replies = await client.conversations.replies({ channel: DEMO.ops, ts: root, limit: 3 });
    expect(replies.messages?.map((m) => m.text)).toEqual(["a", "r1", "r2"]);
    expect(replies.has_more).toBe(true);
    const paged = await client.paginate("conversations.replies", { channel: DEMO.ops, ts: root, limit: 2 });
    const all: string[] = [];
    for await (const page of paged) {
      for (const m of (page as { messages?: Array<{ text: string }> }).messages ?? []) all.push(m.text);
    }
    expect(all).toEqual(["a", "r1", "r2", "r3"]);
    await expect(client.conversations.replies({ channel: DEMO.ops, ts: "1.000001" })).rejects.toMatchObject({
      data: { error: "thread_not_found" },
    });
  });

  it("describes channels and DMs, lists members, opens DMs", async () => {
    expect((await client.conversations.info({ channel: DEMO.ops })).channel).toMatchObject({
      id: DEMO.ops,
      name: "ops",
      is_channel: true,
      is_private: false,
      is_member: true,
      num_members: 4,
    });
    expect((await client.conversations.info({ channel: "D0USER1" })).channel).toMatchObject({
      is_im: true,
      user: DEMO.user,
    });
    expect((await client.conversations.members({ channel: DEMO.general })).members).toEqual([
      DEMO.bot,
      DEMO.admin,
      DEMO.user,
      DEMO.wangLei,
    ]);
    expect(await client.conversations.open({ users: DEMO.user })).toMatchObject({
      channel: { id: "D0USER1" },
      already_open: true,
    });
    emulator.workspace.addUser({ id: "U0NEW", name: "new.person", realName: "New Person" });
    const opened = await client.conversations.open({ users: "U0NEW", return_im: true });
    expect(opened.channel).toMatchObject({ id: "D0NEW", is_im: true, user: "U0NEW" });
    await client.chat.postMessage({ channel: "D0NEW", text: "welcome" });
    await expect(client.conversations.info({ channel: "C0MISSING" })).rejects.toMatchObject({
      data: { error: "channel_not_found" },
    });
    emulator.workspace.addChannel({ id: "C0SECRET", name: "secret", isPrivate: true, members: [DEMO.admin] });
    await expect(client.conversations.history({ channel: "C0SECRET" })).rejects.toMatchObject({
      data: { error: "not_in_channel" },
    });
  });

  it("answers users.info and users.list with profiles and served avatars", async () => {
    const { user } = await client.users.info({ user: DEMO.wangLei });
    expect(user).toMatchObject({
      id: DEMO.wangLei,
      name: "wang.lei",
      real_name: "Wang Lei",
      tz: "Asia/Shanghai",
      is_admin: false,
      is_bot: false,
      deleted: false,
      profile: { display_name: "wang.lei", initials: "WL" },
    });
    const avatar = await fetch(user?.profile?.image_48 ?? "");
    expect(avatar.headers.get("content-type")).toBe("image/svg+xml");
    expect(await avatar.text()).toContain(">WL</text>");
    const list = await client.users.list({});
    expect(list.members?.map((m) => m.id)).toEqual([DEMO.bot, DEMO.admin, DEMO.user, DEMO.wangLei]);
    await expect(client.users.info({ user: "U0NOBODY" })).rejects.toMatchObject({
      data: { error: "user_not_found" },
    });
  });
});
