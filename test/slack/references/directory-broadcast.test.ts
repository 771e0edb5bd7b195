import { createServer } from "node:net";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../../src/core/logger.ts";
import {
  channelEvent,
  channelIdEvent,
  subteamEvent,
  userEvent,
} from "../../../src/sandbox/directory-event-payloads.ts";
import { createEventsSender } from "../../../src/sandbox/events-sender.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { createSlackApp, type SlackAppHandle } from "../../../src/slack/create-slack-app.ts";
import {
  type DirectoryBroadcast,
  directoryEventFields,
  startDirectoryBroadcast,
} from "../../../src/slack/references/directory-broadcast.ts";
import { DIRECTORY_EVENTS, registerDirectoryEvents } from "../../../src/slack/references/directory-events.ts";
import { createWebSlackPort } from "../../../src/slack/web-slack-port.ts";
import { resolveReference } from "../../../src/tools/references/resolve-reference.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl } from "../../helpers/redis.ts";
import { captureLogger, type LogLine } from "../../helpers/redis-queue.ts";
import { sandboxWebClient, startSlackEmulator } from "../../helpers/slack.ts";

const SECRET = "directory-broadcast-secret";
const prefix = `dirb${Math.random().toString(36).slice(2, 10)}`;
const channel = `${prefix}:directory`;

type Port = ReturnType<typeof createWebSlackPort>;

/** A process that receives Slack's events: Bolt with the directory listeners, publishing what it applies. */
async function startReceiverSide(emulator: SlackApiEmulator, redisUrl: string, logger: Logger) {
  const port = createWebSlackPort(sandboxWebClient(emulator));
  const handle: SlackAppHandle = createSlackApp({
    botToken: "xoxb-test",
    signingSecret: SECRET,
    slackApiUrl: emulator.url,
    logger,
    routes: [],
    bot: { userId: DEMO.bot, botId: DEMO.botId },
    events: { record: async () => ({ kind: "ignored", why: "directory event" }) },
  });
  registerDirectoryEvents(handle.app, port.directory, logger);
  const broadcast = startDirectoryBroadcast({ redisUrl, prefix, directory: port.directory, logger });
  broadcast.publishFrom(handle.app);
  const { port: listening } = await handle.start(0, "127.0.0.1");
  const sender = createEventsSender({
    url: `http://127.0.0.1:${listening}/slack/events`,
    signingSecret: SECRET,
    slack: emulator,
  });
  return {
    port,
    broadcast,
    sender,
    async stop() {
      await broadcast.close();
      port.directory.stop();
      await handle.stop();
    },
  };
}

const loaded = (port: Port) =>
  port.loadedUsers().complete && port.loadedChannels().complete && port.loadedUserGroups().complete;

const warned = (lines: LogLine[], msg: string) => lines.filter((l) => l.level === 40 && l.msg === msg);

describe("directory events reach every process's directory over Redis", () => {
  let emulator: SlackApiEmulator;
  let receiver: Awaited<ReturnType<typeof startReceiverSide>>;
  let workerPort: Port;
  let worker: DirectoryBroadcast;
  const workerLog = captureLogger();
  let raw: Redis;
  let spy: Redis;
  const published: string[] = [];

  beforeAll(async () => {
    emulator = await startSlackEmulator();
    receiver = await startReceiverSide(emulator, testRedisUrl, captureLogger().logger);
    // A worker process: the same directory, no Bolt, no Slack events; its own Redis connections.
    workerPort = createWebSlackPort(sandboxWebClient(emulator));
    worker = startDirectoryBroadcast({
      redisUrl: testRedisUrl,
      prefix,
      directory: workerPort.directory,
      logger: workerLog.logger,
    });
    raw = connectTestRedis();
    spy = connectTestRedis();
    spy.on("message", (_c: string, m: string) => published.push(m));
    await spy.subscribe(channel);
    // Both directories subscribed (and the spy) before any event is sent: pub/sub keeps nothing.
    await waitFor(
      async () => ((await raw.pubsub("NUMSUB", channel)) as [string, number])[1] === 3,
      10_000,
      "three subscribers",
    );
    workerPort.loadedUsers();
    receiver.port.loadedUsers();
    await waitFor(() => loaded(workerPort) && loaded(receiver.port), 10_000, "both directories loaded");
  });
  afterAll(async () => {
    await worker?.close();
    workerPort?.directory.stop();
    await receiver?.stop();
    spy?.disconnect();
    if (raw) await deleteKeysWithPrefix(raw, `${prefix}:`).finally(() => raw.disconnect());
    await emulator?.stop();
  });

  const listCalls = () =>
    emulator.callsTo("users.list").length +
    emulator.callsTo("conversations.list").length +
    emulator.callsTo("usergroups.list").length;

  it("a user_change, a rename and a group change received by one process change how the other resolves names, with no list call", async () => {
    const ws = emulator.workspace;
    expect(await resolveReference(workerPort, "@wang.lei", "user")).toEqual({
      type: "user",
      id: DEMO.wangLei,
    });
    const listed = listCalls();

    const renamed = ws.updateUser(DEMO.wangLei, { name: "lei.wang", realName: "Wang Lei" })!;
    const event = userEvent("user_change", renamed);
    // Slack's user object carries more than the directory keeps: none of it is published.
    const user = event.user as Record<string, unknown>;
    user.profile = { ...(user.profile as object), email: "lei@example.com", phone: "+1 555 0100" };
    expect((await receiver.sender.event(event)).status).toBe(200);
    await waitFor(
      () => resolveReference(workerPort, "@lei.wang", "user").then((r) => r.id === DEMO.wangLei),
      10_000,
      "the worker resolving the new name",
    );
    expect(workerPort.directory.users.get(DEMO.wangLei)?.name).toBe("lei.wang");
    const message = JSON.parse(published.find((m) => m.includes("user_change"))!) as {
      event: { user: Record<string, unknown> };
    };
    expect(message.event.user).toEqual({
      id: DEMO.wangLei,
      name: "lei.wang",
      real_name: "Wang Lei",
      tz: renamed.tz,
      is_bot: false,
      deleted: false,
      profile: { display_name: renamed.profile.display_name, real_name: "Wang Lei" },
    });
    expect(published.join("\n")).not.toMatch(/email|phone|lei@example|team_id|is_admin|image_48/);

    const ops = ws.renameChannel(DEMO.ops, "ops-oncall")!;
    expect((await receiver.sender.event(channelEvent("channel_rename", ops))).status).toBe(200);
    await waitFor(
      () => resolveReference(workerPort, "#ops-oncall", "channel").then((r) => r.id === DEMO.ops),
      10_000,
      "the worker resolving the renamed channel",
    );

    const sre = ws.userGroups.add({ id: "S0SRE", handle: "sre", name: "SRE", users: [DEMO.admin] });
    expect((await receiver.sender.event(subteamEvent("subteam_created", sre))).status).toBe(200);
    await waitFor(
      () => workerPort.loadedUserGroups().items.some((g) => g.handle === "sre"),
      10_000,
      "the worker's new group",
    );
    expect(await resolveReference(workerPort, "@sre", "user", { groups: true })).toEqual({
      type: "group",
      id: "S0SRE",
    });

    // An archived channel drops out on both sides; unarchived, each process asks about it once:
    // the receiver does not apply its own message a second time.
    expect(
      (await receiver.sender.event(channelIdEvent("channel_archive", DEMO.ops, DEMO.admin))).status,
    ).toBe(200);
    await waitFor(
      () => workerPort.loadedChannels().items.every((c) => c.id !== DEMO.ops),
      10_000,
      "the archived channel dropped by the worker",
    );
    expect(receiver.port.loadedChannels().items.every((c) => c.id !== DEMO.ops)).toBe(true);
    const infos = emulator.callsTo("conversations.info").length;
    expect(
      (await receiver.sender.event(channelIdEvent("channel_unarchive", DEMO.ops, DEMO.admin))).status,
    ).toBe(200);
    await waitFor(
      () =>
        workerPort.loadedChannels().items.some((c) => c.id === DEMO.ops) &&
        receiver.port.loadedChannels().items.some((c) => c.id === DEMO.ops),
      10_000,
      "the unarchived channel back on both sides",
    );
    // A later event, through the same channel: once it has arrived, the unarchive's messages have too.
    const later = ws.addUser({ id: "U0LATER", name: "later.one", realName: "Later One" });
    expect((await receiver.sender.event(userEvent("team_join", later))).status).toBe(200);
    await waitFor(
      () => workerPort.loadedUsers().items.some((u) => u.id === "U0LATER"),
      10_000,
      "the later event",
    );
    expect(emulator.callsTo("conversations.info").length - infos).toBe(2);

    expect(listCalls()).toBe(listed);
    expect(warned(workerLog.lines, "directory broadcast: ignored a malformed message")).toEqual([]);
  });

  it("a malformed message is logged and ignored; the next good one is applied", async () => {
    const before = workerPort.loadedUsers().items.length;
    const bad = [
      "not json",
      JSON.stringify(["user_change"]),
      JSON.stringify({ from: "elsewhere", type: "users.admin.setInactive", event: { user: { id: "U0X" } } }),
      JSON.stringify({ from: "elsewhere", type: "__proto__", event: {} }),
      JSON.stringify({ from: "elsewhere", type: "team_join", event: { user: { id: 42, name: "answer" } } }),
      JSON.stringify({ type: "team_join", event: { user: { id: "U0NOORIGIN", name: "no.origin" } } }),
      JSON.stringify({ from: "elsewhere", type: "channel_deleted", event: { channel: { id: DEMO.ops } } }),
    ];
    for (const m of bad) await raw.publish(channel, m);
    await raw.publish(
      channel,
      JSON.stringify({
        from: "elsewhere",
        type: "team_join",
        event: { user: { id: "U0GOOD", name: "good.one", profile: { email: "kept@out.example" } } },
      }),
    );
    await waitFor(
      () => workerPort.loadedUsers().items.some((u) => u.id === "U0GOOD"),
      10_000,
      "the good message applied",
    );
    expect(workerPort.loadedUsers().items.length).toBe(before + 1);
    expect(workerPort.loadedChannels().items.some((c) => c.id === DEMO.ops)).toBe(true);
    expect(workerPort.loadedUsers().items.find((u) => u.id === "U0GOOD")).toEqual({
      id: "U0GOOD",
      name: "good.one",
      isBot: false,
      deleted: false,
    });
    expect(warned(workerLog.lines, "directory broadcast: ignored a malformed message")).toHaveLength(
      bad.length,
    );
  });

  it("publishes only the directory events it knows, cut to what the directory reads", () => {
    const known = (type: string) =>
      directoryEventFields(type, { channel: "C1", user: { id: "U1" }, subteam: { id: "S1" } }) ??
      directoryEventFields(type, { channel: { id: "C1", name: "c" } });
    expect(Object.keys(DIRECTORY_EVENTS).filter((type) => !known(type))).toEqual([]);
    expect(directoryEventFields("message", { channel: "C1", text: "hi" })).toBeUndefined();
    expect(directoryEventFields("user_change", { user: { name: "no id" } })).toBeUndefined();
    expect(
      directoryEventFields("subteam_updated", { subteam: { id: "S1", handle: "x", users: ["U1"] } }),
    ).toEqual({
      type: "subteam_updated",
      subteam: { id: "S1", handle: "x" },
    });
  });
});

describe("with Redis unreachable", () => {
  it("a directory event is still applied where it was received, with a warning", async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const emulator = await startSlackEmulator();
    const log = captureLogger();
    const side = await startReceiverSide(emulator, `redis://127.0.0.1:${closed}`, log.logger);
    try {
      side.port.loadedUsers();
      await waitFor(() => loaded(side.port), 10_000, "the directory loaded");
      const renamed = emulator.workspace.updateUser(DEMO.wangLei, { name: "lei.wang" })!;
      expect((await side.sender.event(userEvent("user_change", renamed))).status).toBe(200);
      expect(
        await waitFor(
          () => resolveReference(side.port, "@lei.wang", "user").then((r) => r.id),
          10_000,
          "applied locally",
        ),
      ).toBe(DEMO.wangLei);
      await waitFor(
        () => warned(log.lines, "directory broadcast: could not publish an event").length > 0,
        30_000,
        "the publish warning",
      );
      expect(warned(log.lines, "directory broadcast: Redis is unreachable").length).toBeGreaterThan(0);
      expect(log.lines.filter((l) => l.level >= 50)).toEqual([]);
    } finally {
      await side.stop();
      await emulator.stop();
    }
  });
});
