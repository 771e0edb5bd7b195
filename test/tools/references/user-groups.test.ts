import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveCallArgs } from "../../../src/agent/run/resolve-call-args.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import { resolveReference } from "../../../src/tools/references/resolve-reference.ts";
import { sendMessage, sendMessageGuard } from "../../../src/tools/send-message.ts";
import { resolveAssignee, resolveUserFields, showAssignee } from "../../../src/tools/tickets/user-refs.ts";
import { json, run, type SlackSandbox, startSlackSandbox, toolCaller } from "../tool-harness.ts";

let sandbox: SlackSandbox;
beforeAll(async () => {
  sandbox = await startSlackSandbox();
});
afterAll(() => sandbox.stop());

const me = run(DEMO.user);

describe("a Slack user group is an assignee and a recipient where that makes sense", () => {
  it("every form of a group resolves where groups are allowed, and is refused by name elsewhere", async () => {
    const { slack } = sandbox;
    for (const written of [
      "@netops",
      "netops",
      "<!subteam^S0NETOPS|@netops>",
      "<!subteam^S0NETOPS>",
      "S0NETOPS",
    ])
      expect(await resolveReference(slack, written, "user", { groups: true }), written).toEqual({
        type: "group",
        id: DEMO.netops,
      });
    await expect(resolveReference(slack, "<!subteam^S0NETOPS>", "user")).rejects.toThrow(
      "<!subteam^S0NETOPS> is a user group; this needs a person, e.g. @li.ming or their name.",
    );
    await expect(resolveReference(slack, "S0NETOPS", "channel")).rejects.toThrow(
      /is a user group; this needs a channel/,
    );
    // Close to a group's handle: suggested by name.
    await expect(resolveReference(slack, "@netop", "user", { groups: true })).rejects.toThrow(
      "No one named @netop is in this workspace. Did you mean @netops (user group Network Operations)?",
    );
  });

  it("a ticket assignee group is stored as its id and shown as its mention; an unknown group is refused", async () => {
    const { slack } = sandbox;
    const args = await resolveUserFields(
      slack,
      { assignee: "@netops", created_by: "@li.ming" },
      ["assignee", "created_by"],
      undefined,
      ["assignee"],
    );
    expect(args).toEqual({ assignee: DEMO.netops, created_by: DEMO.user });
    await expect(resolveUserFields(slack, { created_by: "@netops" }, ["created_by"])).rejects.toThrow(
      /No one named @netops/,
    );
    expect(await resolveAssignee(slack, DEMO.netops, DEMO.user)).toBe(DEMO.netops);
    expect(await resolveAssignee(slack, "<!subteam^S0NETOPS|@netops>", DEMO.user)).toBe(DEMO.netops);
    await expect(resolveAssignee(slack, "S0NOSUCH", DEMO.user)).rejects.toThrow(
      "Cannot assign to S0NOSUCH: there is no such Slack user group.",
    );
    expect(showAssignee(DEMO.netops)).toBe("<!subteam^S0NETOPS>");
    expect(showAssignee(DEMO.user)).toBe(DEMO.user);
  });

  it("send_message to a group is one post in a channel mentioning it; without a channel it says what to add", async () => {
    const { slack, emulator } = sandbox;
    const tool = sendMessage(slack);
    expect(
      await resolveCallArgs(tool, { to: "@netops", text: "VPN is down", in_channel: "#ops" }, me),
    ).toEqual({
      ok: true,
      args: { to: DEMO.netops, text: "VPN is down", in_channel: DEMO.ops },
    });
    expect(await resolveCallArgs(tool, { to: "@netops", text: "hi" }, me)).toEqual({
      ok: false,
      error:
        "@netops is a user group: a message to a group is posted once in a channel, mentioning the group. Give in_channel, e.g. #ops.",
    });
    expect(await resolveCallArgs(tool, { to: "@li.ming", text: "hi", in_channel: "#ops" }, me)).toEqual({
      ok: false,
      error: "in_channel is only for a user group; @li.ming is a person: leave in_channel out.",
    });
    // Policy: the requester must be in the channel the group is mentioned in.
    const guard = sendMessageGuard(slack);
    expect(await guard({ args: { to: DEMO.netops, in_channel: DEMO.ops }, run: me })).toBeUndefined();
    emulator.workspace.addChannel({ id: "C0CLOSED", name: "closed", members: [DEMO.bot] });
    expect(await guard({ args: { to: DEMO.netops, in_channel: "C0CLOSED" }, run: me })).toBe(
      `<@${DEMO.user}> is not a member of <#C0CLOSED>`,
    );
    expect(await guard({ args: { to: DEMO.netops }, run: me })).toBe(
      `a message to the user group ${DEMO.netops} needs in_channel`,
    );
    // Executed: one message, the group's mention first.
    const call = toolCaller([tool]);
    const sent = json(
      await call("send_message", { to: DEMO.netops, text: "VPN <down>", in_channel: DEMO.ops }, me),
    );
    expect(sent).toMatchObject({ sent: true, to: DEMO.netops, channel: DEMO.ops });
    const posted = emulator.workspace.getMessage(DEMO.ops, String(sent.ts));
    expect(posted?.text).toBe(
      `<!subteam^S0NETOPS> VPN &lt;down&gt;\n_— sent by Hermes on behalf of <@${DEMO.user}>_`,
    );
  });

  it("a DM channel id (D…) and an enterprise user id (W…) are ids, checked with one info call", async () => {
    const { slack, emulator } = sandbox;
    emulator.workspace.addUser({ id: "W0GRIDUSER", name: "grid.user", realName: "Grid User" });
    emulator.clearCalls();
    expect(await resolveReference(slack, DEMO.dmUser, "recipient")).toEqual({
      type: "channel",
      id: DEMO.dmUser,
    });
    expect(await resolveReference(slack, "<#D0USER1>", "channel")).toEqual({
      type: "channel",
      id: DEMO.dmUser,
    });
    expect(await resolveReference(slack, "W0GRIDUSER", "user")).toEqual({ type: "user", id: "W0GRIDUSER" });
    expect(await resolveReference(slack, "<@W0GRIDUSER|grid.user>", "recipient")).toEqual({
      type: "user",
      id: "W0GRIDUSER",
    });
    await expect(resolveReference(slack, DEMO.dmUser, "user")).rejects.toThrow(
      /is a channel; this needs a person/,
    );
    expect(emulator.callsTo("users.list")).toHaveLength(0);
    expect(emulator.callsTo("conversations.list")).toHaveLength(0);
    // Sending into a DM: only its member may (the requester's own DM with the bot).
    const guard = sendMessageGuard(slack);
    expect(await guard({ args: { to: DEMO.dmUser }, run: me })).toBeUndefined();
    expect(await guard({ args: { to: DEMO.dmWangLei }, run: me })).toBe(
      `<@${DEMO.user}> is not a member of <#${DEMO.dmWangLei}>`,
    );
  });
});
