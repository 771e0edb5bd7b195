import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.ts";
import {
  channelEvent,
  channelIdEvent,
  subteamEvent,
  userEvent,
} from "../../../src/sandbox/directory-event-payloads.ts";
import { createEventsSender } from "../../../src/sandbox/events-sender.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { createEventRecorder, type RecordedEvent } from "../../../src/slack/claim-event.ts";
import { classifyEvent } from "../../../src/slack/classify-event.ts";
import { createSlackApp, type SlackAppHandle } from "../../../src/slack/create-slack-app.ts";
import type { FollowUpLane } from "../../../src/slack/follow-up-lane.ts";
import { registerDirectoryEvents } from "../../../src/slack/references/directory-events.ts";
import { createWebSlackPort } from "../../../src/slack/web-slack-port.ts";
import { resolveReference } from "../../../src/tools/references/resolve-reference.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { sandboxWebClient, startSlackEmulator } from "../../helpers/slack.ts";

const SECRET = "directory-events-secret";
let emulator: SlackApiEmulator;
let handle: SlackAppHandle;
let port: ReturnType<typeof createWebSlackPort>;
const recorded: RecordedEvent[] = [];
let sender: ReturnType<typeof createEventsSender>;

/**
 * A running Bolt app with Hermes's receiver and its record-first intake (the recorder the bot uses:
 * these events are "ignored" as turns), and the directory listeners, fed signed events by the
 * emulator's sender, as Slack would deliver them.
 */
beforeAll(async () => {
  emulator = await startSlackEmulator();
  port = createWebSlackPort(sandboxWebClient(emulator));
  const record = createEventRecorder(
    {
      events: undefined as never,
      limits: {},
      bot: { userId: DEMO.bot, botId: DEMO.botId, teamId: DEMO.team },
    },
    {} as FollowUpLane,
  );
  handle = createSlackApp({
    botToken: "xoxb-test",
    signingSecret: SECRET,
    slackApiUrl: emulator.url,
    logger: silentLogger(),
    routes: [],
    bot: { userId: DEMO.bot, botId: DEMO.botId },
    events: {
      record: async (body) => {
        const outcome = await record(body);
        recorded.push(outcome);
        return outcome;
      },
    },
  });
  registerDirectoryEvents(handle.app, port.directory);
  const { port: listening } = await handle.start(0, "127.0.0.1");
  sender = createEventsSender({
    url: `http://127.0.0.1:${listening}/slack/events`,
    signingSecret: SECRET,
    slack: emulator,
  });
});
afterAll(async () => {
  port?.directory.stop();
  await handle?.stop();
  await emulator?.stop();
});

const listCalls = () =>
  emulator.callsTo("users.list").length +
  emulator.callsTo("conversations.list").length +
  emulator.callsTo("usergroups.list").length;

async function deliver(event: Record<string, unknown>, changed: () => boolean) {
  const before = recorded.length;
  const delivery = await sender.event(event);
  expect(delivery.status).toBe(200);
  await waitFor(changed, 10_000, `${String(event.type)} applied`);
  // Recorded before the ack as every callback is, and ignored as a turn.
  expect(recorded.slice(before)).toEqual([
    { kind: "ignored", why: `event type ${String(event.type)}`, eventId: expect.any(String) },
  ]);
}

describe("Slack's directory events keep the loaded directory fresh, without listing again", () => {
  it("user_change and team_join change and add people; channel events rename, add and drop channels; subteam events change groups", async () => {
    const ws = emulator.workspace;
    // Loaded once, complete.
    expect(await resolveReference(port, "@li.ming", "user")).toEqual({ type: "user", id: DEMO.user });
    expect(await resolveReference(port, "#ops", "channel")).toEqual({ type: "channel", id: DEMO.ops });
    expect(await resolveReference(port, "@netops", "user", { groups: true })).toEqual({
      type: "group",
      id: DEMO.netops,
    });
    await waitFor(
      () => port.loadedUsers().complete && port.loadedChannels().complete && port.loadedUserGroups().complete,
      10_000,
      "the loaded directory",
    );
    const listed = listCalls();

    // A new display name (user_change) and a new person (team_join).
    const renamed = ws.updateUser(DEMO.wangLei, { name: "lei.wang", realName: "Wang Lei" })!;
    await deliver(userEvent("user_change", renamed), () =>
      port.loadedUsers().items.some((u) => u.name === "lei.wang"),
    );
    expect(await resolveReference(port, "@lei.wang", "user")).toEqual({ type: "user", id: DEMO.wangLei });
    const joined = ws.addUser({ id: "U0JOINED", name: "new.hire", realName: "New Hire" });
    await deliver(userEvent("team_join", joined), () =>
      port.loadedUsers().items.some((u) => u.id === "U0JOINED"),
    );
    expect(await resolveReference(port, "New Hire", "user")).toEqual({ type: "user", id: "U0JOINED" });

    // A channel renamed, one created, one archived (dropped), unarchived (looked up), deleted.
    const ops = ws.renameChannel(DEMO.ops, "ops-oncall")!;
    await deliver(channelEvent("channel_rename", ops), () =>
      port.loadedChannels().items.some((c) => c.name === "ops-oncall"),
    );
    expect(await resolveReference(port, "#ops-oncall", "channel")).toEqual({ type: "channel", id: DEMO.ops });
    await expect(resolveReference(port, "#ops", "channel")).rejects.toThrow(/No channel named #ops\./);
    const created = ws.addChannel({ id: "C0INCIDENT42", name: "incident-42", members: [] });
    await deliver(channelEvent("channel_created", created, DEMO.admin), () =>
      port.loadedChannels().items.some((c) => c.id === "C0INCIDENT42"),
    );
    expect(await resolveReference(port, "#incident-42", "channel")).toEqual({
      type: "channel",
      id: "C0INCIDENT42",
    });
    await deliver(channelIdEvent("channel_archive", "C0INCIDENT42", DEMO.admin), () =>
      port.loadedChannels().items.every((c) => c.id !== "C0INCIDENT42"),
    );
    await deliver(channelIdEvent("channel_unarchive", "C0INCIDENT42", DEMO.admin), () =>
      port.loadedChannels().items.some((c) => c.id === "C0INCIDENT42"),
    );
    await deliver(channelIdEvent("channel_deleted", "C0INCIDENT42"), () =>
      port.loadedChannels().items.every((c) => c.id !== "C0INCIDENT42"),
    );

    // A user group created, renamed, then disabled.
    const sre = ws.userGroups.add({ id: "S0SRE", handle: "sre", name: "SRE", users: [DEMO.admin] });
    await deliver(subteamEvent("subteam_created", sre), () =>
      port.loadedUserGroups().items.some((g) => g.id === "S0SRE"),
    );
    const renamedGroup = ws.userGroups.update("S0SRE", { handle: "sre-oncall" })!;
    await deliver(subteamEvent("subteam_updated", renamedGroup), () =>
      port.loadedUserGroups().items.some((g) => g.handle === "sre-oncall"),
    );
    expect(await resolveReference(port, "@sre-oncall", "user", { groups: true })).toEqual({
      type: "group",
      id: "S0SRE",
    });
    const disabled = ws.userGroups.update("S0SRE", { disabled: true })!;
    await deliver(subteamEvent("subteam_updated", disabled), () =>
      port.loadedUserGroups().items.every((g) => g.id !== "S0SRE"),
    );

    // All of it without listing the workspace again.
    expect(listCalls()).toBe(listed);
  });

  it("classify-event starts no turn for a directory event, even one whose fields look like a message's", () => {
    const ctx = { teamId: DEMO.team, botUserId: DEMO.bot, botId: DEMO.botId };
    for (const event of [
      userEvent("user_change", emulator.workspace.getUser(DEMO.user)!),
      channelIdEvent("channel_archive", DEMO.ops, DEMO.user),
      { type: "channel_rename", channel: DEMO.ops, user: DEMO.user, ts: "1.000001", text: "hi" },
    ])
      expect(classifyEvent(event as never, ctx).answer, String(event.type)).toBe(false);
  });
});
