import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PageState } from "../../../src/sandbox/web/sandbox-web.ts";
import { sandboxWebClient, TINY_PNG } from "../../helpers/slack.ts";
import { eventually, fakeAuditFeed, type Harness, startHarness } from "./harness.ts";
import { REPLY_TEXT } from "./test-bot.ts";

let harness: Harness;

beforeEach(async () => {
  harness = await startHarness({ auditFeed: fakeAuditFeed() });
});
afterEach(() => harness.stop());

function get(path: string) {
  return fetch(`${harness.origin}${path}`);
}

function post(path: string, body: unknown, contentType = "application/json") {
  return fetch(`${harness.origin}${path}`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function state(as: string): Promise<PageState> {
  const response = await get(`/sandbox/api/state?as=${as}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { state: PageState }).state;
}

type Sse = { event: string; data: unknown };

/** Reads Server-Sent Events from a response; `until` resolves once the events so far satisfy it. */
function sseReader(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: Sse[] = [];
  let buffer = "";
  return {
    events,
    async until(done: (events: Sse[]) => boolean): Promise<Sse[]> {
      const deadline = setTimeout(() => void reader.cancel(), 5000);
      try {
        while (!done(events)) {
          const { value, done: ended } = await reader.read();
          if (ended) throw new Error(`stream ended after ${JSON.stringify(events)}`);
          buffer += decoder.decode(value, { stream: true });
          for (let cut = buffer.indexOf("\n\n"); cut !== -1; cut = buffer.indexOf("\n\n")) {
            const chunk = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const event = /^event: (.*)$/m.exec(chunk)?.[1];
            const data = /^data: (.*)$/m.exec(chunk)?.[1];
            if (event && data) events.push({ event, data: JSON.parse(data) });
          }
        }
        return events;
      } finally {
        clearTimeout(deadline);
      }
    },
    close: () => reader.cancel().catch(() => {}),
  };
}

describe("sandbox page API", () => {
  it("shows each person their channels, the thread, and only their own ephemerals", async () => {
    const sent = await post("/sandbox/api/messages", {
      as: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> hello",
    });
    expect(sent.status).toBe(200);
    const { ts } = (await sent.json()) as { ts: string };
    await eventually(() => harness.workspace.ephemeralMessages("C0OPS", "U0USER1")[0]);

    const mine = await state("U0USER1");
    expect(mine.me).toBe("U0USER1");
    expect(mine.modelInfo).toContain("scripted-test-model");
    expect(mine.channels.map((c) => c.id).sort()).toEqual(["C0GENERAL", "C0OPS", "D0USER1"]);
    expect(mine.channels.find((c) => c.id === "D0USER1")).toMatchObject({ isIm: true, dmWith: "U0HERMES" });
    expect(mine.users.find((u) => u.id === "U0ADMIN")).toMatchObject({ isAuditAdmin: true });
    const thread = mine.messages.filter((m) => m.thread_ts === ts);
    expect(thread.map((m) => m.text)).toEqual([
      "<@U0HERMES> hello",
      REPLY_TEXT,
      "Psst: only you can see this note.",
    ]);
    expect(thread[2]).toMatchObject({ ephemeral_for: "U0USER1" });

    const theirs = await state("U0WANGLEI");
    expect(theirs.channels.map((c) => c.id).sort()).toEqual(["C0GENERAL", "C0OPS", "D0WANGLEI"]);
    expect(theirs.messages.map((m) => m.text)).toEqual(["<@U0HERMES> hello", REPLY_TEXT]);
    expect(JSON.stringify(theirs)).not.toContain("Psst");
  });

  it("refuses unknown people, bad input, other channels and non-JSON bodies with a short JSON error", async () => {
    const cases: Array<[Response, number, string]> = [
      [await get("/sandbox/api/state?as=U0NOBODY"), 403, "unknown_user"],
      [await get("/sandbox/api/state?as=U0HERMES"), 403, "unknown_user"],
      [await get("/sandbox/api/state"), 400, "invalid_input"],
      [
        await post("/sandbox/api/messages", { as: "U0USER1", channel: "C0OPS", text: "  " }),
        400,
        "invalid_input",
      ],
      [
        await post("/sandbox/api/messages", { as: "U0USER1", channel: "ops", text: "hi" }),
        400,
        "invalid_input",
      ],
      [
        await post("/sandbox/api/messages", { as: "U0USER1", channel: "D0ADMIN", text: "hi" }),
        403,
        "not_in_channel",
      ],
      [
        await post("/sandbox/api/messages", { as: "U0USER1", channel: "C0NOPE", text: "hi" }),
        404,
        "channel_not_found",
      ],
      [
        await post("/sandbox/api/messages", "as=U0USER1", "application/x-www-form-urlencoded"),
        415,
        "unsupported_media_type",
      ],
      [await post("/sandbox/api/messages", "{not json"), 400, "invalid_json"],
      [
        await post("/sandbox/api/commands", { as: "U0USER1", channel: "C0OPS", command: "/other" }),
        400,
        "invalid_input",
      ],
      [await post("/sandbox/api/nope", {}), 404, "not_found"],
      [
        await post("/sandbox/api/actions", {
          as: "U0USER1",
          channel: "C0OPS",
          messageTs: "1700000000.000100",
          actionId: "demo.approve",
        }),
        404,
        "message_not_found",
      ],
    ];
    for (const [response, status, error] of cases) {
      expect({ status: response.status, body: await response.json() }).toMatchObject({
        status,
        body: { ok: false, error, message: expect.any(String) },
      });
    }
    const long = await post("/sandbox/api/messages", {
      as: "U0USER1",
      channel: "C0OPS",
      text: "x".repeat(40_001),
    });
    expect(((await long.json()) as { message: string }).message).toMatch(/^text: /);
    expect(harness.bot.received).toEqual([]);
  });

  it("streams each person's changes as Server-Sent Events, without others' ephemerals", async () => {
    const stream = await get("/sandbox/api/stream?as=U0WANGLEI");
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const sse = sseReader(stream);
    await sse.until((events) => events.some((e) => e.event === "ready"));
    harness.workspace.postEphemeral({ channel: "C0OPS", text: "for Li Ming only", visibleTo: "U0USER1" });
    harness.workspace.postEphemeral({ channel: "C0OPS", text: "for Wang Lei", visibleTo: "U0WANGLEI" });
    const events = await sse.until((all) => all.some((e) => e.event === "workspace"));
    await sse.close();
    expect(events[0]).toEqual({ event: "ready", data: { me: "U0WANGLEI" } });
    expect(events.filter((e) => e.event === "workspace")).toEqual([
      {
        event: "workspace",
        data: expect.objectContaining({
          type: "message_posted",
          channel: "C0OPS",
          message: expect.objectContaining({ text: "for Wang Lei", ephemeral_for: "U0WANGLEI" }),
        }),
      },
    ]);
  });

  it("sends clicks on real buttons to the bot, which updates the message; refuses buttons that are not there", async () => {
    await post("/sandbox/api/messages", { as: "U0USER1", channel: "D0USER1", text: "hi there" });
    const reply = await eventually(() =>
      harness.workspace.history("D0USER1").find((m) => m.reply_count)
        ? harness.workspace.replies("D0USER1", harness.workspace.history("D0USER1")[0]?.ts ?? "")?.[1]
        : undefined,
    );
    const im = harness.bot.received.find((b) => (b.event as { type?: string })?.type === "message");
    expect(im?.event).toMatchObject({ channel_type: "im", text: "hi there", user: "U0USER1" });

    const missing = await post("/sandbox/api/actions", {
      as: "U0USER1",
      channel: "D0USER1",
      messageTs: reply.ts,
      actionId: "demo.delete_everything",
    });
    expect(missing.status).toBe(404);
    const click = await post("/sandbox/api/actions", {
      as: "U0USER1",
      channel: "D0USER1",
      messageTs: reply.ts,
      actionId: "demo.approve",
      value: "ap_demo",
    });
    expect(click.status).toBe(200);
    const updated = await eventually(() => {
      const m = harness.workspace.getMessage("D0USER1", reply.ts);
      return m?.text.startsWith("Approved") ? m : undefined;
    });
    expect(updated.text).toBe("Approved by <@U0USER1>");
    expect(harness.bot.received.filter((b) => b.type === "block_actions")).toHaveLength(1);
  });

  it("runs /hermes through the response_url or its ack (an ephemeral for the caller), and App Home through views.publish", async () => {
    const command = await post("/sandbox/api/commands", { as: "U0USER1", channel: "C0OPS", text: "whoami" });
    expect(command.status).toBe(200);
    const answer = await eventually(() => harness.workspace.ephemeralMessages("C0OPS", "U0USER1")[0]);
    expect(answer.text).toBe("You ran `/hermes whoami`");
    expect(harness.bot.received[0]).toMatchObject({ command: "/hermes", text: "whoami", user_id: "U0USER1" });

    await post("/sandbox/api/commands", { as: "U0WANGLEI", channel: "C0OPS", text: "inline" });
    expect(harness.workspace.ephemeralMessages("C0OPS", "U0WANGLEI").map((m) => m.text)).toEqual([
      "Answered in the ack",
    ]);

    expect((await post("/sandbox/api/home", { as: "U0USER1" })).status).toBe(200);
    const view = await eventually(async () => (await state("U0USER1")).view ?? undefined);
    expect(JSON.stringify(view.blocks)).toContain("Hermes home");
    expect((await state("U0WANGLEI")).view).toBeNull();
  });

  it("says so when the bot cannot be reached, and keeps the message", async () => {
    await harness.bot.stop();
    const sent = await post("/sandbox/api/messages", { as: "U0USER1", channel: "D0USER1", text: "anyone?" });
    expect(sent.status).toBe(502);
    expect(await sent.json()).toMatchObject({ ok: false, error: "bot_unreachable" });
    expect(harness.workspace.history("D0USER1").map((m) => m.text)).toEqual(["anyone?"]);
  });

  it("gives the audit feed to admins only", async () => {
    const refused = await get("/sandbox/api/audit?as=U0USER1");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: "admins_only" });
    const audit = await get("/sandbox/api/audit?as=U0ADMIN");
    expect(await audit.json()).toMatchObject({
      ok: true,
      available: true,
      verify: { ok: true, rows: 3 },
      rows: [{ id: 3, action: "tool.executed" }, { id: 2 }, { id: 1 }],
    });
  });

  it("serves the page with a CSP pinning its import map, the vendored modules, avatars and files to members", async () => {
    const page = await get("/");
    const html = await page.text();
    const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
    const hash = createHash("sha256").update(importMap).digest("base64");
    expect(page.headers.get("content-security-policy")).toContain(`'sha256-${hash}'`);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    for (const path of JSON.parse(importMap).imports
      ? Object.values(JSON.parse(importMap).imports as object)
      : []) {
      const asset = await get(String(path));
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toMatch(/^text\/javascript/);
    }
    expect((await get("/sandbox/static/app.js")).status).toBe(200);
    expect((await get("/sandbox/static/mrkdwn.d.ts")).status).toBe(404);
    expect((await get("/sandbox/static/..%2Fsandbox-web.ts")).status).toBe(404);
    expect((await get("/sandbox/avatars/U0USER1.svg")).headers.get("content-type")).toBe("image/svg+xml");
    expect((await get("/healthz")).status).toBe(404);

    harness.workspace.addChannel({ id: "C0SECRET", name: "secret", members: ["U0ADMIN", "U0HERMES"] });
    const client = sandboxWebClient(harness.emulator);
    const upload = await client.filesUploadV2({
      channel_id: "C0SECRET",
      file: TINY_PNG,
      filename: "chart.png",
    });
    const fileId = (upload.files as Array<{ files?: Array<{ id: string }> }>)[0]?.files?.[0]?.id ?? "";
    const admin = await get(`/sandbox/files/${fileId}/chart.png?as=U0ADMIN`);
    expect(admin.status).toBe(200);
    expect(admin.headers.get("content-type")).toBe("image/png");
    expect(admin.headers.get("content-security-policy")).toContain("sandbox");
    expect((await get(`/sandbox/files/${fileId}/chart.png?as=U0USER1`)).status).toBe(404);
    const adminState = await state("U0ADMIN");
    expect(adminState.files[0]).toMatchObject({
      id: fileId,
      url: `/sandbox/files/${fileId}/chart.png?as=U0ADMIN`,
    });
  });
});
