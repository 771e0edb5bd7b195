import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isHermesError } from "../../../src/core/errors.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { createWorkspaceDirectory } from "../../../src/slack/references/workspace-directory.ts";
import { createWebSlackPort } from "../../../src/slack/web-slack-port.ts";
import { resolveReference } from "../../../src/tools/references/resolve-reference.ts";
import type { SlackPort } from "../../../src/tools/slack-port.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { sandboxWebClient, startSlackEmulator } from "../../helpers/slack.ts";

/** Past one page (200) of users.list and conversations.list, so every look-up follows a cursor. */
const EXTRA_USERS = 230;
const EXTRA_CHANNELS = 210;

let emulator: SlackApiEmulator;
let slack: SlackPort;

beforeAll(async () => {
  emulator = await startSlackEmulator();
  const ws = emulator.workspace;
  for (let i = 0; i < EXTRA_USERS; i++)
    ws.addUser({ id: `U0FILL${i}`, name: `fill.${i}`, realName: `Filler ${i}` });
  // The people the test names come after the filler: only the second page finds them.
  ws.addUser({ id: "U0ZHAOMIN", name: "zhao.min", realName: "Zhao Min", displayName: "赵敏" });
  ws.addUser({ id: "U0WANGF1", name: "wang.fang", realName: "Wang Fang" });
  ws.addUser({ id: "U0WANGF2", name: "fang.wang", realName: "Wang Fang" });
  ws.addUser({ id: "U0GONE", name: "old.timer", realName: "Old Timer", deleted: true });
  for (let i = 0; i < EXTRA_CHANNELS; i++)
    ws.addChannel({ id: `C0FILL${i}`, name: `fill-${i}`, members: [] });
  ws.addChannel({ id: "C0RELEASE", name: "release-notes", members: [DEMO.bot] });
  ws.addChannel({ id: "C0SECRET", name: "secret-plans", members: [DEMO.admin], isPrivate: true });
  // Private, and the bot is in it (so conversations.list shows it); Li Ming, the requester, is not.
  ws.addChannel({ id: "C0EXEC", name: "exec-layoffs", members: [DEMO.bot, DEMO.admin], isPrivate: true });
  ws.addUser({ id: "U0EXECL", name: "exec.layoffs", realName: "Exec Layoffs Bot" });
  slack = createWebSlackPort(sandboxWebClient(emulator));
});

afterAll(() => emulator.stop());

beforeEach(() => {
  emulator.clearCalls();
  slack = createWebSlackPort(sandboxWebClient(emulator)); // a fresh cache per test
});

async function refusal(ref: string, kind: "user" | "channel" | "recipient"): Promise<string> {
  try {
    await resolveReference(slack, ref, kind);
  } catch (err) {
    if (isHermesError(err, "bad_request")) return err.message;
    throw err;
  }
  throw new Error(`${ref} resolved`);
}

describe("names, mentions and ids resolve to Slack ids over the Web API", () => {
  it("takes every form a person or Slack's client writes", async () => {
    const cases: Array<[string, "user" | "channel" | "recipient", { type: string; id: string }]> = [
      ["<#C0GENERAL|general>", "recipient", { type: "channel", id: DEMO.general }],
      ["<#C0GENERAL>", "channel", { type: "channel", id: DEMO.general }],
      ["<#C0GENERAL|>", "recipient", { type: "channel", id: DEMO.general }],
      ["<@U0USER1>", "recipient", { type: "user", id: DEMO.user }],
      ["<@U0USER1|li.ming>", "user", { type: "user", id: DEMO.user }],
      ["C0OPS", "recipient", { type: "channel", id: DEMO.ops }],
      ["U0WANGLEI", "user", { type: "user", id: DEMO.wangLei }],
      ["#general", "recipient", { type: "channel", id: DEMO.general }],
      ["#General", "channel", { type: "channel", id: DEMO.general }],
      ["＃general", "recipient", { type: "channel", id: DEMO.general }], // typed with a Chinese IME
      ["general", "recipient", { type: "channel", id: DEMO.general }],
      ["#release-notes", "channel", { type: "channel", id: "C0RELEASE" }],
      ["@li.ming", "recipient", { type: "user", id: DEMO.user }],
      ["Li Ming", "recipient", { type: "user", id: DEMO.user }],
      ["li.ming", "user", { type: "user", id: DEMO.user }],
      ["LI MING", "user", { type: "user", id: DEMO.user }],
      ["Ｌｉ　Ｍｉｎｇ", "user", { type: "user", id: DEMO.user }], // full width, ideographic space
      ["@Wang Lei", "user", { type: "user", id: DEMO.wangLei }],
      ["赵敏", "user", { type: "user", id: "U0ZHAOMIN" }],
      ["@赵敏", "recipient", { type: "user", id: "U0ZHAOMIN" }],
      ["@wang.fang", "user", { type: "user", id: "U0WANGF1" }], // a handle wins over a shared real name
    ];
    for (const [ref, kind, expected] of cases) {
      expect(await resolveReference(slack, ref, kind), ref).toEqual(expected);
    }
  });

  it("an unknown name is refused with up to three close matches", async () => {
    expect(await refusal("#genral", "recipient")).toBe("No channel named #genral. Did you mean #general?");
    expect(await refusal("#generall", "channel")).toBe("No channel named #generall. Did you mean #general?");
    expect(await refusal("@li.mnig", "user")).toBe(
      "No one named @li.mnig is in this workspace. Did you mean @li.ming (Li Ming)?",
    );
    expect(await refusal("赵明", "user")).toBe(
      'No one named "赵明" is in this workspace. Did you mean @zhao.min (Zhao Min)?',
    );
    const many = await refusal("#fill-1000", "channel");
    expect(many).toMatch(/^No channel named #fill-1000\. Did you mean #fill-\d+, #fill-\d+ or #fill-\d+\?$/);
    expect(await refusal("#nothing-like-it", "channel")).toBe(
      "No channel named #nothing-like-it. Check the spelling, or pick the channel from the # menu.",
    );
    // Deactivated people and private channels the bot is not in are not offered.
    expect(await refusal("Old Timer", "user")).toBe(
      'No one named "Old Timer" is in this workspace. Check the spelling, or pick them from the @ menu.',
    );
    expect(await refusal("#secret-plans", "channel")).toMatch(/^No channel named #secret-plans\./);
  });

  it("an ambiguous name lists who it could be; the wrong kind is named", async () => {
    expect(await refusal("Wang Fang", "user")).toBe(
      '"Wang Fang" could mean @wang.fang (Wang Fang), @fang.wang (Wang Fang). Give their @handle, or pick them from the @ menu.',
    );
    expect(await refusal("#general", "user")).toBe(
      "#general is a channel; this needs a person, e.g. @li.ming or their name.",
    );
    expect(await refusal("<@U0USER1>", "channel")).toBe(
      "<@U0USER1> is a person; this needs a channel, e.g. #general.",
    );
  });

  it("follows every page, and one fetch serves many look-ups at once", async () => {
    const refs = [
      "Li Ming",
      "@wang.lei",
      "赵敏",
      "zhang.wei",
      "@li.ming",
      "Wang Lei",
      "#general",
      "#ops",
      "ops",
    ];
    const resolved = await Promise.all(refs.map((r) => resolveReference(slack, r, "recipient")));
    expect(resolved.map((r) => r.id)).toEqual([
      DEMO.user,
      DEMO.wangLei,
      "U0ZHAOMIN",
      DEMO.admin,
      DEMO.user,
      DEMO.wangLei,
      DEMO.general,
      DEMO.ops,
      DEMO.ops,
    ]);
    // 236 people and 214 channels at 200 a page: two pages each, fetched once for all nine (the
    // channels' second page loads behind the look-ups that found theirs on the first).
    await waitFor(
      () => slack.loadedUsers().complete && slack.loadedChannels().complete,
      10_000,
      "both lists",
    );
    expect(emulator.callsTo("users.list")).toHaveLength(2);
    expect(emulator.callsTo("conversations.list")).toHaveLength(2);
    await resolveReference(slack, "@zhao.min", "user");
    expect(emulator.callsTo("users.list")).toHaveLength(2);
  });

  it("a failed page is asked again from its cursor; a complete list is never fetched again per look-up", async () => {
    const directory = createWorkspaceDirectory(sandboxWebClient(emulator), { retryMs: 20 });
    emulator.faults.fail("users.list", "internal_error");
    expect(directory.users.read()).toMatchObject({ complete: false, items: [] });
    await waitFor(() => directory.users.read().complete, 10_000, "the list after one failed page");
    const first = directory.users.read();
    expect(first.items.some((u) => u.id === "U0ZHAOMIN" && u.displayName === "赵敏")).toBe(true);
    expect(emulator.callsTo("users.list")).toHaveLength(3); // the failure, then two pages
    expect(directory.users.read().items).toBe(first.items); // the same array until something changes
    const port = { ...slack, loadedUsers: () => directory.users.read() };
    for (const name of ["@zhao.min", "Li Ming", "@wang.lei"]) await resolveReference(port, name, "user");
    expect(emulator.callsTo("users.list")).toHaveLength(3);
    directory.stop();
  });
});

describe("private channels are never named to someone who may not be in them", () => {
  it("no suggestion, no ambiguity list; only the exact name finds one", async () => {
    expect(emulator.workspace.isMember("C0EXEC", DEMO.user)).toBe(false);
    for (const near of ["#exec-layoff", "#exec-layofs", "#exec"]) {
      const said = await refusal(near, "channel");
      expect(said, near).toBe(
        `No channel named ${near}. Check the spelling, or pick the channel from the # menu.`,
      );
    }
    expect(await refusal("exec layoff", "recipient")).not.toMatch(/#exec-layoffs/);
    // Same key, not the exact name: refused, and the channel is not named.
    expect(await refusal("#Exec Layoffs", "channel")).toBe(
      "No channel named #Exec Layoffs. Check the spelling, or pick the channel from the # menu.",
    );
    // A name that also fits a person: the person is listed, the private channel is not named.
    const both = await refusal("exec-layoffs", "recipient");
    expect(both).toBe(
      "\"exec-layoffs\" could mean @exec.layoffs (Exec Layoffs Bot), a channel. Write @ before a person's name or # before a channel's.",
    );
    // The exact name, an encoded reference or the id resolve: send_message's membership policy decides.
    for (const ref of ["#exec-layoffs", "＃exec-layoffs", "<#C0EXEC|exec-layoffs>", "C0EXEC"]) {
      expect(await resolveReference(slack, ref, "channel"), ref).toEqual({ type: "channel", id: "C0EXEC" });
    }
  });
});

describe("suggestions stay cheap", () => {
  it("a 10,000-person workspace and a hostile name are refused in bounded time (the figure is logged)", async () => {
    const users = Array.from({ length: 10_000 }, (_, i) => ({
      id: `U${i}`,
      name: `person.${i}.${"x".repeat(i % 40)}`,
      realName: `Person ${i} ${"y".repeat(i % 50)}`,
      isBot: false,
      deleted: false,
    }));
    const directory = {
      loadedUsers: () => ({ items: users, complete: true }),
      loadedChannels: () => ({ items: [], complete: true }),
      loadedUserGroups: () => ({ items: [], complete: true }),
      directoryLoads: () => new Promise<void>(() => undefined),
      userById: async () => undefined,
      channelById: async () => undefined,
    };
    const started = performance.now();
    await expect(resolveReference(directory, `@${"z".repeat(60)}`, "user")).rejects.toThrow(/No one named/);
    await expect(resolveReference(directory, "@person.9999", "user")).rejects.toThrow(/Did you mean/);
    const ms = performance.now() - started;
    console.log(`two refusals over 10,000 people: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(5_000); // bounds a hang on a busy machine; the figure is logged
  });
});
