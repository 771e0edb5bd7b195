import { afterEach, describe, expect, it } from "vitest";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

let emulator: SlackApiEmulator | undefined;
afterEach(() => emulator?.stop());

/** An emulator whose rate-limit clock the test moves by hand. */
async function limited(options: { scale?: number; burst?: Record<string, number> } = {}) {
  const clock = { now: Date.UTC(2030, 0, 1) };
  emulator = await startSlackEmulator({ rateLimits: { ...options, now: () => clock.now } });
  return { emulator, clock, client: sandboxWebClient(emulator, { rejectRateLimitedCalls: true }) };
}

describe("the emulator's rate limits (Slack's published rates)", () => {
  it("are off unless asked for", async () => {
    emulator = await startSlackEmulator();
    const client = sandboxWebClient(emulator, { rejectRateLimitedCalls: true });
    const posts = Array.from({ length: 20 }, () => client.chat.postMessage({ channel: DEMO.ops, text: "x" }));
    await expect(Promise.all(posts)).resolves.toHaveLength(20);
    expect(emulator.rateLimits).toBeUndefined();
  });

  it("chat.postMessage: about one per second per channel after a short burst; other channels unaffected", async () => {
    const { client, clock, emulator: e } = await limited();
    for (let i = 0; i < 3; i++) await client.chat.postMessage({ channel: DEMO.ops, text: `burst ${i}` });
    await expect(client.chat.postMessage({ channel: DEMO.ops, text: "one too many" })).rejects.toMatchObject({
      code: "slack_webapi_rate_limited_error",
      retryAfter: 1,
    });
    // Another channel has a budget of its own.
    await expect(
      client.chat.postMessage({ channel: DEMO.general, text: "elsewhere" }),
    ).resolves.toMatchObject({
      ok: true,
    });
    clock.now += 1001;
    await expect(
      client.chat.postMessage({ channel: DEMO.ops, text: "a second later" }),
    ).resolves.toMatchObject({
      ok: true,
    });
    expect(e.rateLimits!.limited.get(`chat.postMessage ${DEMO.ops}`)).toBe(1);
    // The refused call was recorded with Slack's error, and was not posted.
    expect(e.callsTo("chat.postMessage").filter((c) => c.response?.error === "ratelimited")).toHaveLength(1);
    expect(e.workspace.history(DEMO.ops).some((m) => m.text === "one too many")).toBe(false);
  });

  it("tiered methods: one budget per method for the workspace, Retry-After in whole seconds", async () => {
    const { client, clock } = await limited({ burst: { "chat.update": 2 } });
    const a = await client.chat.postMessage({ channel: DEMO.ops, text: "a" });
    const b = await client.chat.postMessage({ channel: DEMO.general, text: "b" });
    await client.chat.update({ channel: DEMO.ops, ts: a.ts!, text: "a1" });
    await client.chat.update({ channel: DEMO.general, ts: b.ts!, text: "b1" });
    // Tier 3 is 50 per minute: the next token is 1.2 s away, asked as 2 whole seconds.
    await expect(client.chat.update({ channel: DEMO.ops, ts: a.ts!, text: "a2" })).rejects.toMatchObject({
      retryAfter: 2,
    });
    // Other methods are not held back.
    await expect(client.chat.delete({ channel: DEMO.general, ts: b.ts! })).resolves.toMatchObject({
      ok: true,
    });
    clock.now += 1201;
    await expect(client.chat.update({ channel: DEMO.ops, ts: a.ts!, text: "a2" })).resolves.toMatchObject({
      ok: true,
    });
  });

  it("the streaming methods: chat.appendStream is tier 4 (a burst of 20, then 100 a minute), chat.startStream tier 2", async () => {
    const { client, clock, emulator: e } = await limited();
    const started = await client.apiCall("chat.startStream", { channel: DEMO.dmUser });
    const ts = String((started as { ts?: string }).ts);
    for (let i = 0; i < 20; i++)
      await client.apiCall("chat.appendStream", { channel: DEMO.dmUser, ts, markdown_text: `${i} ` });
    // Beyond the tier: 429 with Retry-After (the next token is 0.6 s away, asked as 1 whole second).
    await expect(
      client.apiCall("chat.appendStream", { channel: DEMO.dmUser, ts, markdown_text: "over " }),
    ).rejects.toMatchObject({ code: "slack_webapi_rate_limited_error", retryAfter: 1 });
    const refused = e.callsTo("chat.appendStream").filter((c) => c.response?.error === "ratelimited");
    expect(refused).toHaveLength(1);
    expect(e.rateLimits!.limited.get("chat.appendStream")).toBe(1);
    // The refused append was not applied: the message holds the twenty that were taken.
    const text = Array.from({ length: 20 }, (_, i) => `${i} `).join("");
    expect(e.workspace.getMessage(DEMO.dmUser, ts)!.text).toBe(text);
    clock.now += 601;
    await expect(
      client.apiCall("chat.appendStream", { channel: DEMO.dmUser, ts, markdown_text: "later " }),
    ).resolves.toMatchObject({ ok: true });

    // chat.startStream: a burst of 5, then 20 a minute (a token every 3 s).
    for (let i = 0; i < 4; i++) await client.apiCall("chat.startStream", { channel: DEMO.dmUser });
    await expect(client.apiCall("chat.startStream", { channel: DEMO.dmUser })).rejects.toMatchObject({
      retryAfter: 3,
    });
    // chat.stopStream has a budget of its own.
    await expect(client.apiCall("chat.stopStream", { channel: DEMO.dmUser, ts })).resolves.toMatchObject({
      ok: true,
    });
  });

  it("scale multiplies the rates (a test's burst takes seconds); Retry-After stays at least 1 s", async () => {
    const { client, clock } = await limited({ scale: 20, burst: { "chat.postMessage": 1 } });
    await client.chat.postMessage({ channel: DEMO.ops, text: "1" });
    await expect(client.chat.postMessage({ channel: DEMO.ops, text: "2" })).rejects.toMatchObject({
      retryAfter: 1,
    });
    clock.now += 51; // 20 per second
    await expect(client.chat.postMessage({ channel: DEMO.ops, text: "2" })).resolves.toMatchObject({
      ok: true,
    });
  });

  it("refuses a nonsense configuration with a clear error", async () => {
    await expect(startSlackEmulator({ rateLimits: { scale: 0 } })).rejects.toThrow(
      /scale must be a positive/,
    );
    await expect(startSlackEmulator({ rateLimits: { burst: { "chat.update": 0 } } })).rejects.toThrow(
      /burst for chat.update must be at least 1/,
    );
  });
});

describe("planned rate limits for one channel", () => {
  it("hit only that channel's calls of the method", async () => {
    emulator = await startSlackEmulator();
    const client = sandboxWebClient(emulator, { rejectRateLimitedCalls: true });
    emulator.faults.rateLimit("chat.postMessage", { times: 1, retryAfterSeconds: 7, channel: DEMO.ops });
    await expect(client.chat.postMessage({ channel: DEMO.general, text: "x" })).resolves.toMatchObject({
      ok: true,
    });
    await expect(client.chat.postMessage({ channel: DEMO.ops, text: "x" })).rejects.toMatchObject({
      retryAfter: 7,
    });
    await expect(client.chat.postMessage({ channel: DEMO.ops, text: "x" })).resolves.toMatchObject({
      ok: true,
    });
  });
});
