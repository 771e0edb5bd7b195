import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createEventsSender, type EventsSender } from "../../src/sandbox/events-sender.ts";
import { loadPersistedWorkspace } from "../../src/sandbox/persisted-workspace.ts";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { sampleFileBytes } from "../../src/sandbox/sample-files.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { quietSlackLogger, sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

/**
 * A person attaches files to a message: the emulator keeps them, the events carry Slack's file
 * objects, and the bot reads them back (files.info, url_private) only as Slack would let it.
 */

const signingSecret = "user-files-secret";
const PNG = sampleFileBytes("sample-screenshot.png")!;
const CSV = Buffer.from("ticket,status\nT-1,open\n");
// The screenshot's size from its PNG header, and how far Slack scales it down for `thumb_360`.
const SHOT = {
  width: PNG.readUInt32BE(16),
  height: PNG.readUInt32BE(20),
  get scale() {
    return Math.min(1, 360 / Math.max(this.width, this.height));
  },
};

type Event = Record<string, unknown> & { type: string; files?: Array<Record<string, unknown>> };

let emulator: SlackApiEmulator;
let app: App;
let sender: EventsSender;
let client: WebClient;
const seen: Event[] = [];

async function eventually<T>(find: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  emulator = await startSlackEmulator();
  client = sandboxWebClient(emulator);
  app = new App({
    token: "xoxb-test",
    signingSecret,
    clientOptions: { slackApiUrl: emulator.url, retryConfig: { retries: 0 } },
    logger: quietSlackLogger(),
  });
  app.event("app_mention", async ({ event }) => {
    seen.push(event as unknown as Event);
  });
  app.event("message", async ({ event }) => {
    seen.push(event as unknown as Event);
  });
  const server = await app.start(0);
  const { port } = server.address() as AddressInfo;
  sender = createEventsSender({
    url: `http://127.0.0.1:${port}/slack/events`,
    signingSecret,
    slack: emulator,
  });
});

afterAll(async () => {
  await app.stop();
  await emulator.stop();
});

beforeEach(() => {
  seen.length = 0;
  emulator.scopes.add("files:read");
});

const get = (url: string, token?: string) =>
  fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe("a person's message with files", () => {
  it("in the bot's DM: a file_share message event with Slack's file objects, readable with the bot token", async () => {
    const { message, delivery } = await sender.userSays({
      user: DEMO.user,
      channel: DEMO.dmUser,
      text: "what is wrong here?",
      files: [
        { name: "screenshot.png", bytes: PNG },
        { name: "tickets.csv", bytes: CSV, title: "Open tickets" },
      ],
    });
    expect(delivery?.status).toBe(200);
    expect(message).toMatchObject({ subtype: "file_share", upload: true, display_as_bot: false });
    const event = await eventually(() => seen.find((e) => e.type === "message"));
    expect(event).toMatchObject({
      type: "message",
      subtype: "file_share",
      channel: DEMO.dmUser,
      channel_type: "im",
      user: DEMO.user,
      text: "what is wrong here?",
      ts: message.ts,
      upload: true,
      display_as_bot: false,
    });
    const [png, csv] = event.files ?? [];
    expect(png).toMatchObject({
      id: expect.stringMatching(/^F[A-Z0-9]+$/),
      name: "screenshot.png",
      title: "screenshot.png",
      mimetype: "image/png",
      filetype: "png",
      pretty_type: "PNG",
      user: DEMO.user,
      user_team: DEMO.team,
      size: PNG.length,
      created: expect.any(Number),
      timestamp: expect.any(Number),
      mode: "hosted",
      is_external: false,
      is_public: false,
      original_w: SHOT.width,
      original_h: SHOT.height,
      thumb_360: expect.stringMatching(/\/files\/F\w+\/screenshot_360\.png$/),
      thumb_360_w: Math.round(SHOT.width * SHOT.scale),
      thumb_360_h: Math.round(SHOT.height * SHOT.scale),
      url_private: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/files\/F\w+\/screenshot\.png$/),
      url_private_download: expect.stringContaining("download=1"),
      permalink: expect.any(String),
    });
    expect(png).not.toHaveProperty("uploaded");
    expect(png).not.toHaveProperty("channels");
    expect(csv).toMatchObject({
      name: "tickets.csv",
      title: "Open tickets",
      mimetype: "text/csv",
      pretty_type: "CSV",
    });
    expect(csv).not.toHaveProperty("thumb_360");

    // url_private and the thumbnails: the bytes with the bot token only.
    const bytes = await get(String(png?.url_private), "xoxb-test");
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await bytes.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await get(String(png?.thumb_360), "xoxb-test")).status).toBe(200);
    expect((await get(String(png?.url_private))).status).toBe(401);
    expect((await get(String(png?.url_private), "xoxb-wrong")).status).toBe(403);
    const download = await get(String(csv?.url_private_download), "xoxb-test");
    expect(download.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(await download.text()).toBe(CSV.toString());

    // files.info: the DM share in `ims` and `shares.private`.
    const info = await client.files.info({ file: String(png?.id) });
    expect(info.file).toMatchObject({
      id: png?.id,
      name: "screenshot.png",
      channels: [],
      groups: [],
      ims: [DEMO.dmUser],
    });
    expect(info.file?.shares?.private?.[DEMO.dmUser]?.[0]).toMatchObject({
      ts: message.ts,
      share_user_id: DEMO.user,
    });
    // History lists the same file objects.
    const history = await client.conversations.history({ channel: DEMO.dmUser, limit: 1 });
    expect(history.messages?.[0]?.files?.[0]).toMatchObject({
      id: png?.id,
      pretty_type: "PNG",
      mode: "hosted",
    });
  });

  it("mentioning the bot in a channel: app_mention carries the files; files.info lists the channel share", async () => {
    const { message } = await sender.userSays({
      user: DEMO.admin,
      channel: DEMO.ops,
      text: "<@U0HERMES> read this",
      files: [{ name: "sample-report.pdf", bytes: sampleFileBytes("sample-report.pdf")! }],
    });
    const mention = await eventually(() => seen.find((e) => e.type === "app_mention"));
    expect(mention).not.toHaveProperty("subtype");
    expect(mention).toMatchObject({ text: "<@U0HERMES> read this", upload: true, channel: DEMO.ops });
    const [pdf] = mention.files ?? [];
    expect(pdf).toMatchObject({
      name: "sample-report.pdf",
      mimetype: "application/pdf",
      filetype: "pdf",
      pretty_type: "PDF",
      is_public: true,
    });

    const info = await client.files.info({ file: String(pdf?.id) });
    expect(info.file).toMatchObject({ channels: [DEMO.ops], is_public: true });
    expect(info.file?.shares?.public?.[DEMO.ops]?.[0]).toMatchObject({
      ts: message.ts,
      channel_name: "ops",
      share_user_id: DEMO.admin,
      team_id: DEMO.team,
    });
  });

  it("a file with no text, in a thread: no blocks, thread_ts set", async () => {
    const parent = postAsUser(emulator.workspace, { user: DEMO.user, channel: DEMO.dmUser, text: "first" });
    await sender.messageIm({
      user: DEMO.user,
      text: "",
      threadTs: parent.ts,
      files: [{ name: "notes.txt", bytes: Buffer.from("hello") }],
    });
    const event = await eventually(() => seen.find((e) => e.type === "message"));
    expect(event).toMatchObject({ subtype: "file_share", thread_ts: parent.ts, text: "" });
    expect(event).not.toHaveProperty("blocks");
    expect(event.files?.[0]).toMatchObject({
      name: "notes.txt",
      filetype: "text",
      pretty_type: "Plain Text",
      size: 5,
    });
  });

  it("without files:read: files.info answers missing_scope and url_private Slack's sign-in page", async () => {
    const { message } = await sender.userSays({
      user: DEMO.user,
      channel: DEMO.dmUser,
      text: "here",
      files: [{ name: "t.csv", bytes: CSV }],
    });
    const file = message.files?.[0];
    emulator.scopes.delete("files:read");
    const answer = await fetch(`${emulator.url}files.info?file=${file?.id}`, {
      headers: { authorization: "Bearer xoxb-test" },
    });
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: false, error: "missing_scope", needed: "files:read" });
    expect(String(body.provided).split(",")).toContain("chat:write");
    expect(String(body.provided).split(",")).not.toContain("files:read");
    expect(answer.headers.get("x-oauth-scopes")).not.toContain("files:read");
    const page = await get(String(file?.url_private), "xoxb-test");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("<!DOCTYPE html>");
  });

  it("a file shared only where the bot is not: file_not_found in files.info and at url_private", async () => {
    const room = emulator.workspace.addChannel({
      id: "C0NOBOT",
      name: "no-bot",
      isPrivate: true,
      members: [DEMO.user, DEMO.admin],
    });
    const message = postAsUser(emulator.workspace, {
      user: DEMO.user,
      channel: room.id,
      text: "private",
      files: [{ name: "secret.csv", bytes: CSV }],
      origin: emulator.origin,
    });
    const file = message.files?.[0];
    await expect(client.files.info({ file: String(file?.id) })).rejects.toMatchObject({
      data: { ok: false, error: "file_not_found" },
    });
    expect((await get(String(file?.url_private), "xoxb-test")).status).toBe(404);
    await expect(client.files.info({ file: "F0NOSUCHFILE" })).rejects.toMatchObject({
      data: { error: "file_not_found" },
    });
    // Shared later into a channel with the bot, it becomes readable.
    emulator.workspace.shareFile(String(file?.id), DEMO.ops);
    expect((await client.files.info({ file: String(file?.id) })).file).toMatchObject({
      channels: [DEMO.ops],
      groups: [],
    });
  });

  it("refuses empty or oversized files with a sentence a person can act on", () => {
    expect(() =>
      postAsUser(emulator.workspace, {
        user: DEMO.user,
        channel: DEMO.dmUser,
        text: "x",
        files: [{ name: "empty.txt", bytes: Buffer.alloc(0) }],
        origin: emulator.origin,
      }),
    ).toThrow("empty.txt is empty.");
  });
});

describe("a persisted workspace", () => {
  it("keeps a person's attached file, bytes included, across a restart", () => {
    const root = mkdtempSync(join(tmpdir(), "hermes-user-files-"));
    try {
      const dir = join(root, "sandbox");
      const first = loadPersistedWorkspace({ dir, logger: silentLogger() });
      first.start();
      const message = postAsUser(first.workspace, {
        user: DEMO.user,
        channel: DEMO.dmUser,
        text: "kept",
        files: [{ name: "shot.png", bytes: PNG }],
        origin: "http://127.0.0.1:3000",
      });
      first.close();
      const again = loadPersistedWorkspace({ dir, logger: silentLogger() });
      const id = String(message.files?.[0]?.id);
      expect(again.workspace.getFile(id)?.bytes.equals(PNG)).toBe(true);
      expect(again.workspace.getFile(id)).toMatchObject({
        uploaded: true,
        channels: [DEMO.dmUser],
        pretty_type: "PNG",
      });
      expect(again.workspace.getMessage(DEMO.dmUser, message.ts)?.files?.[0]?.id).toBe(id);
      again.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
