import { WebClientEvent } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

let emulator: SlackApiEmulator;

beforeEach(async () => {
  emulator = await startSlackEmulator();
});
afterEach(() => emulator.stop());

describe("fault injection", () => {
  it("answers 429 with Retry-After, which the WebClient honours before retrying", async () => {
    const client = sandboxWebClient(emulator, { retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 0 } });
    const rateLimited: number[] = [];
    client.on(WebClientEvent.RATE_LIMITED, (seconds: number) => rateLimited.push(seconds));
    emulator.faults.rateLimit("chat.update", { times: 1, retryAfterSeconds: 1 });
    const posted = await client.chat.postMessage({ channel: DEMO.ops, text: "working…" });

    const started = Date.now();
    const updated = await client.chat.update({ channel: DEMO.ops, ts: posted.ts ?? "", text: "done" });
    expect(updated.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(rateLimited).toEqual([1]);
    expect(emulator.callsTo("chat.update").map((c) => c.response?.error ?? "ok")).toEqual([
      "ratelimited",
      "ok",
    ]);
  });

  it("lets a client that rejects rate-limited calls see the 429 at once", async () => {
    const client = sandboxWebClient(emulator, { rejectRateLimitedCalls: true });
    emulator.faults.rateLimit("chat.postMessage", { retryAfterSeconds: 30 });
    await expect(client.chat.postMessage({ channel: DEMO.ops, text: "x" })).rejects.toMatchObject({
      code: "slack_webapi_rate_limited_error",
      retryAfter: 30,
    });
  });

  it("fails the next N calls with a given Slack error, then answers normally", async () => {
    const client = sandboxWebClient(emulator);
    emulator.faults.fail("chat.postMessage", "fatal_error", { times: 2 });
    for (let i = 0; i < 2; i++) {
      await expect(client.chat.postMessage({ channel: DEMO.ops, text: "x" })).rejects.toMatchObject({
        data: { ok: false, error: "fatal_error" },
      });
    }
    await expect(client.chat.postMessage({ channel: DEMO.ops, text: "x" })).resolves.toMatchObject({
      ok: true,
    });
    emulator.faults.httpStatus("auth.test", 503);
    await expect(client.auth.test()).rejects.toMatchObject({
      code: "slack_webapi_http_error",
      statusCode: 503,
    });
    expect(emulator.calls.map((c) => c.method)).toEqual([
      "chat.postMessage",
      "chat.postMessage",
      "chat.postMessage",
      "auth.test",
    ]);
  });
});
