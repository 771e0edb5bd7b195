import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveCallArgs } from "../../../src/agent/run/resolve-call-args.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { channelEvent, userEvent } from "../../../src/sandbox/directory-event-payloads.ts";
import { createEventsSender } from "../../../src/sandbox/events-sender.ts";
import { DEMO, seedDemoWorkspace } from "../../../src/sandbox/seed-demo-workspace.ts";
import {
  largeChannel,
  largeGroup,
  largeUser,
  seedLargeWorkspace,
} from "../../../src/sandbox/seed-large-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { createSlackApp, type SlackAppHandle } from "../../../src/slack/create-slack-app.ts";
import { CallScheduler } from "../../../src/slack/rate-limit/call-scheduler.ts";
import { PacedWebClient } from "../../../src/slack/rate-limit/paced-web-client.ts";
import { registerDirectoryEvents } from "../../../src/slack/references/directory-events.ts";
import { createWebSlackPort } from "../../../src/slack/web-slack-port.ts";
import { resolveReference } from "../../../src/tools/references/resolve-reference.ts";
import { sendMessage } from "../../../src/tools/send-message.ts";
import { resolveAssignee, resolveUserFields } from "../../../src/tools/tickets/user-refs.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { quietSlackLogger, startSlackEmulator } from "../../helpers/slack.ts";

/**
 * A 20,000-person, 5,000-channel workspace with Slack's tier-2 limits enforced (20 calls a minute,
 * scaled ×SCALE so the 101 + 26 pages take seconds), and Hermes's real directory over the paced
 * client, at the same scale.
 */
const SCALE = 60;
const USERS = 20_000;
const CHANNELS = 5_000;
const SECRET = "large-workspace-secret";
/** 20,000 generated people and the demo's four, 200 a page. */
const USER_PAGES = Math.ceil((USERS + 4) / 200);
const CHANNEL_PAGES = Math.ceil((CHANNELS + 2) / 200);

let emulator: SlackApiEmulator;
const ports: Array<ReturnType<typeof createWebSlackPort>> = [];
let app: SlackAppHandle | undefined;
let seedMs = 0;

beforeAll(async () => {
  const started = performance.now();
  const workspace = seedDemoWorkspace();
  seedLargeWorkspace(workspace, { users: USERS, channels: CHANNELS });
  workspace.addUser({ id: "W0GRIDUSER", name: "grid.user", realName: "Grid User" });
  seedMs = performance.now() - started;
  console.log(`seeding ${USERS} people and ${CHANNELS} channels: ${seedMs.toFixed(0)} ms`);
  emulator = await startSlackEmulator({ workspace, rateLimits: { scale: SCALE } });
});
afterAll(async () => {
  for (const port of ports) port.directory.stop();
  await app?.stop();
  await emulator?.stop();
});

/** Hermes's Slack port over its paced client, with a directory of its own. */
function hermesPort() {
  const client = new PacedWebClient("xoxb-test", {
    slackApiUrl: emulator.url,
    scheduler: new CallScheduler({}),
    lane: "deliver",
    rateScale: SCALE,
    retryConfig: { retries: 0 },
    logger: quietSlackLogger(),
  });
  const port = createWebSlackPort(client, { directory: { retryMs: 50 } });
  ports.push(port);
  return port;
}

const calls = (method: string) => emulator.callsTo(method).length;
const last = largeUser(USERS - 10);

describe("resolving people and channels in a 20,000-person workspace", () => {
  const port = () => ports[0]!;

  it("(a) ids resolve at once, with one info call each and no list", async () => {
    const slack = hermesPort();
    const started = performance.now();
    for (const [written, kind, expected] of [
      [largeUser(USERS - 1).id, "user", { type: "user", id: largeUser(USERS - 1).id }],
      [`<@${largeUser(7).id}>`, "recipient", { type: "user", id: largeUser(7).id }],
      ["W0GRIDUSER", "user", { type: "user", id: "W0GRIDUSER" }],
      [largeChannel(CHANNELS - 2).id, "channel", { type: "channel", id: largeChannel(CHANNELS - 2).id }],
      [DEMO.dmUser, "recipient", { type: "channel", id: DEMO.dmUser }],
    ] as const) {
      expect(await resolveReference(slack, written, kind), written).toEqual(expected);
    }
    console.log(`five ids: ${(performance.now() - started).toFixed(0)} ms`);
    expect(calls("users.list") + calls("conversations.list")).toBe(0);
  });

  it("(c) a name whose page is not loaded yet is 'still loading' (never 'not found'), then (b) resolves once loaded", async () => {
    const slack = port();
    const handle = `@${last.handle}`;
    let said = "";
    try {
      await resolveReference(slack, handle, "user", { signal: AbortSignal.timeout(300) });
    } catch (err) {
      said = (err as Error).message;
    }
    expect(said).toMatch(
      new RegExp(
        `^Looking up "${handle}" in Slack took too long: its member list \\(\\d[\\d,]* people so far\\) is still loading, so nothing was done\\.`,
      ),
    );
    expect(slack.loadedUsers().complete).toBe(false);

    const started = performance.now();
    expect(await resolveReference(slack, handle, "user")).toEqual({ type: "user", id: last.id });
    console.log(
      `${handle} resolved after ${(performance.now() - started).toFixed(0)} ms more; users.list calls: ${calls("users.list")} (pages: ${USER_PAGES}), answered 429: ${emulator.rateLimits?.limited.get("users.list") ?? 0}`,
    );
    expect(calls("users.list")).toBeLessThanOrEqual(USER_PAGES);
  });

  it("(b) once loaded, a burst of look-ups lists nothing again, and an ambiguous real name names some of its people", async () => {
    const slack = port();
    await waitFor(
      () => slack.loadedUsers().complete && slack.loadedChannels().complete,
      25_000,
      "the loaded directory",
    );
    const listed = calls("users.list") + calls("conversations.list");
    expect(calls("users.list")).toBeLessThanOrEqual(USER_PAGES);
    expect(calls("conversations.list")).toBeLessThanOrEqual(CHANNEL_PAGES);
    const names = Array.from({ length: 40 }, (_, i) => `@${largeUser(i * 497).handle}`);
    const started = performance.now();
    const resolved = await Promise.all(names.map((n) => resolveReference(slack, n, "user")));
    console.log(`40 names over 20,000 people: ${(performance.now() - started).toFixed(0)} ms`);
    expect(resolved.map((r) => r.id)).toEqual(names.map((_, i) => largeUser(i * 497).id));
    expect(await resolveReference(slack, `#${largeChannel(4321).name}`, "channel")).toEqual({
      type: "channel",
      id: largeChannel(4321).id,
    });
    await expect(resolveReference(slack, "Wei Wang", "user")).rejects.toThrow(
      /^"Wei Wang" could mean @wei\.wang \(Wei Wang\), @wei\.wang\d+ \(Wei Wang\), @wei\.wang\d+ \(Wei Wang\) and \d+ more\./,
    );
    await expect(resolveReference(slack, "@no.such.person", "user")).rejects.toThrow(
      /^No one named @no\.such\.person/,
    );
    expect(calls("users.list") + calls("conversations.list")).toBe(listed);
  });

  it("(d) user_change and channel_rename, delivered signed to the Bolt app, change resolution without listing again", async () => {
    const slack = port();
    app = createSlackApp({
      botToken: "xoxb-test",
      signingSecret: SECRET,
      slackApiUrl: emulator.url,
      logger: silentLogger(),
      routes: [],
      bot: { userId: DEMO.bot, botId: DEMO.botId },
      events: { record: async () => ({ kind: "ignored", why: "directory event" }) },
    });
    registerDirectoryEvents(app.app, slack.directory);
    const { port: listening } = await app.start(0, "127.0.0.1");
    const sender = createEventsSender({
      url: `http://127.0.0.1:${listening}/slack/events`,
      signingSecret: SECRET,
      slack: emulator,
    });
    const listed = calls("users.list") + calls("conversations.list");

    const person = largeUser(12_345);
    const changed = emulator.workspace.updateUser(person.id, { name: "zz.renamed", realName: "Zz Renamed" })!;
    expect((await sender.event(userEvent("user_change", changed))).status).toBe(200);
    await waitFor(
      () => slack.directory.users.get(person.id)?.name === "zz.renamed",
      10_000,
      "the changed person",
    );
    expect(await resolveReference(slack, "@zz.renamed", "user")).toEqual({ type: "user", id: person.id });

    const channel = largeChannel(2_000);
    const renamed = emulator.workspace.renameChannel(channel.id, "incident-9999")!;
    expect((await sender.event(channelEvent("channel_rename", renamed))).status).toBe(200);
    await waitFor(
      () => slack.directory.channels.get(channel.id)?.name === "incident-9999",
      10_000,
      "the rename",
    );
    expect(await resolveReference(slack, "#incident-9999", "channel")).toEqual({
      type: "channel",
      id: channel.id,
    });
    expect(calls("users.list") + calls("conversations.list")).toBe(listed);
  });

  it("(e) with users.list failing or rate-limited, ids still resolve and names say why they cannot yet", async () => {
    emulator.faults.withoutMethods("users.list");
    try {
      const slack = hermesPort();
      expect(await resolveReference(slack, largeUser(42).id, "user")).toEqual({
        type: "user",
        id: largeUser(42).id,
      });
      await waitFor(() => slack.loadedUsers().failure, 10_000, "the failed first page");
      await expect(resolveReference(slack, `@${largeUser(42).handle}`, "user")).rejects.toThrow(
        `Could not look up "@${largeUser(42).handle}" in Slack yet: its member list (0 people so far) is still loading; Slack's last answer: unknown_method, so nothing was done.`,
      );
    } finally {
      emulator.faults.clear();
    }
    emulator.faults.rateLimit("users.list", { times: 1_000 });
    try {
      const slack = hermesPort();
      slack.loadedUsers(); // starts loading: every page answers 429
      expect(await resolveReference(slack, `<@${largeUser(43).id}>`, "user")).toEqual({
        type: "user",
        id: largeUser(43).id,
      });
      expect(await resolveReference(slack, largeUser(44).id, "user")).toEqual({
        type: "user",
        id: largeUser(44).id,
      });
      const said = await resolveCallArgs(
        sendMessage(slack),
        { to: `@${largeUser(44).handle}`, text: "hi" },
        { runId: "r", sessionKey: "s", userId: DEMO.user },
        { timeoutMs: 500 },
      );
      expect(said.ok).toBe(false);
      expect((said as { error: string }).error).not.toMatch(/No one named/);
    } finally {
      emulator.faults.clear();
    }
  });

  it("(f) a user group resolves as a ticket assignee and as a message recipient", async () => {
    const slack = port();
    const group = largeGroup(3);
    const args = await resolveUserFields(slack, { assignee: `@${group.handle}` }, ["assignee"], undefined, [
      "assignee",
    ]);
    expect(args).toEqual({ assignee: group.id });
    expect(await resolveAssignee(slack, args.assignee, DEMO.user)).toBe(group.id);
    const resolved = await resolveCallArgs(
      sendMessage(slack),
      { to: `<!subteam^${group.id}|@${group.handle}>`, text: "the VPN is down", in_channel: "#general" },
      { runId: "r", sessionKey: "s", userId: DEMO.user },
    );
    expect(resolved).toEqual({
      ok: true,
      args: { to: group.id, text: "the VPN is down", in_channel: DEMO.general },
    });
  });
});
