import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveCallArgs } from "../../../src/agent/run/resolve-call-args.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { createWebSlackPort } from "../../../src/slack/web-slack-port.ts";
import { resolveReference } from "../../../src/tools/references/resolve-reference.ts";
import { sendMessage } from "../../../src/tools/send-message.ts";
import type { SlackPort } from "../../../src/tools/slack-port.ts";
import { sandboxWebClient, startSlackEmulator } from "../../helpers/slack.ts";

let emulator: SlackApiEmulator;
let slack: SlackPort;
const run = { runId: "run_ids", sessionKey: "s", userId: DEMO.user };

beforeAll(async () => {
  emulator = await startSlackEmulator();
  // An id-shaped word that is someone's name, and one that is a channel's.
  emulator.workspace.addUser({ id: "U0CHIEF", name: "CEO", realName: "Chief Executive" });
  emulator.workspace.addChannel({ id: "C0CFO", name: "cfo", members: [DEMO.bot] });
});
afterAll(() => emulator.stop());

beforeEach(() => {
  emulator.faults.clear();
  emulator.clearCalls();
  slack = createWebSlackPort(sandboxWebClient(emulator)); // a fresh cache per test
});

const listCalls = () => emulator.callsTo("users.list").length + emulator.callsTo("conversations.list").length;

describe("a raw id is checked on its own, never by listing the workspace", () => {
  it("resolves U… and C… with one info call each while users.list and conversations.list are unavailable", async () => {
    emulator.faults.withoutMethods("users.list", "conversations.list");
    for (const [to, id] of [
      [DEMO.wangLei, DEMO.wangLei],
      [DEMO.ops, DEMO.ops],
      [`@${DEMO.user}`, DEMO.user],
      [`#${DEMO.general}`, DEMO.general],
    ]) {
      const resolved = await resolveCallArgs(sendMessage(slack), { to, text: "hi" }, run);
      expect(resolved, to).toEqual({ ok: true, args: { to: id, text: "hi" } });
    }
    expect(listCalls()).toBe(0);
    expect(emulator.callsTo("users.info")).toHaveLength(2);
    expect(emulator.callsTo("conversations.info")).toHaveLength(2);
  });

  it("resolves ids while the lists are rate-limited, and asks Slack once per id for a burst", async () => {
    emulator.faults.rateLimit("users.list", { times: 10 });
    emulator.faults.rateLimit("conversations.list", { times: 10 });
    const burst = await Promise.all(
      [DEMO.wangLei, DEMO.wangLei, DEMO.ops, DEMO.ops, DEMO.wangLei].map((to) =>
        resolveReference(slack, to, "recipient"),
      ),
    );
    expect(burst.map((r) => r.type)).toEqual(["user", "user", "channel", "channel", "user"]);
    expect(await resolveReference(slack, DEMO.ops, "channel")).toEqual({ type: "channel", id: DEMO.ops });
    expect(emulator.callsTo("users.info")).toHaveLength(1);
    expect(emulator.callsTo("conversations.info")).toHaveLength(1);
    expect(listCalls()).toBe(0);
    // A name still needs the lists: that look-up says Slack could not be asked.
    await expect(resolveReference(slack, "@li.ming", "user")).rejects.toThrow(/Could not look up/);
  });

  it("an id-shaped word Slack does not know as an id is then a name", async () => {
    expect(await resolveReference(slack, "CEO", "user")).toEqual({ type: "user", id: "U0CHIEF" });
    expect(await resolveReference(slack, "CFO", "channel")).toEqual({ type: "channel", id: "C0CFO" });
    // Asked for a person, the C…-shaped "CEO" is no channel to check; asked for a channel, "CFO" is.
    expect(emulator.callsTo("conversations.info")).toHaveLength(1);
    expect(emulator.callsTo("users.list").length).toBeGreaterThan(0);
    // An id no one has and no name matches is passed on as an id, as before: policy says what is wrong.
    expect(await resolveReference(slack, "U0NOBODY", "user")).toEqual({ type: "user", id: "U0NOBODY" });
  });

  it("the wrong kind of id is refused; a private channel without the bot is passed on", async () => {
    await expect(resolveReference(slack, DEMO.wangLei, "channel")).rejects.toThrow(/is a person/);
    emulator.workspace.addChannel({ id: "C0HIDDEN", name: "hidden", members: [DEMO.admin], isPrivate: true });
    expect(await resolveReference(slack, "C0HIDDEN", "channel")).toEqual({ type: "channel", id: "C0HIDDEN" });
  });
});
