import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatModel } from "../../src/agent/model/chat-model.ts";
import { limitModelCalls, modelCallLimit } from "../../src/agent/model/limit-model-calls.ts";
import { createOpenAIModel } from "../../src/agent/model/openai-model.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { answer } from "../helpers/scripted-model.ts";

/** An OpenAI-compatible server that holds every request until the test lets it go. */
async function startParkingModelServer() {
  const parked: Array<{ model: string; res: ServerResponse }> = [];
  let arrived = 0;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      arrived++;
      parked.push({ model: (JSON.parse(body) as { model: string }).model, res });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const completion = (answer("ok") as { completion: Record<string, unknown> }).completion;
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    parked,
    arrived: () => arrived,
    releaseOne() {
      const p = parked.shift();
      p?.res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(completion));
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function openai(baseURL: string, model: string): ChatModel {
  return createOpenAIModel({
    baseURL,
    apiKey: "k",
    model,
    temperature: 0,
    maxOutputTokens: 64,
    timeoutMs: 60_000,
    maxRetries: 0,
  });
}

const ask = (m: ChatModel, signal?: AbortSignal) =>
  m.complete({ messages: [{ role: "user", content: "hi" }], tools: [], ...(signal ? { signal } : {}) });

describe("HERMES_MODEL_CONCURRENCY: one cap on model calls in flight", () => {
  let server: Awaited<ReturnType<typeof startParkingModelServer>>;
  beforeEach(async () => {
    server = await startParkingModelServer();
  });
  afterEach(async () => {
    while (server.parked.length > 0) server.releaseOne();
    await server.stop();
  });

  it("the primary and the fallback share the cap; each call waits for a slot, none is lost", async () => {
    const limit = modelCallLimit(2);
    const primary = limitModelCalls(openai(server.baseURL, "primary"), limit);
    const fallback = limitModelCalls(openai(server.baseURL, "fallback"), limit);
    expect(primary.name).toBe("primary");
    const calls = [
      ...Array.from({ length: 4 }, () => ask(primary)),
      ...Array.from({ length: 3 }, () => ask(fallback)),
    ];

    await waitFor(() => server.parked.length === 2, 10_000, "two calls at the server");
    // The rest wait here, not at the server.
    expect(limit.pendingCount).toBe(5);
    expect(server.arrived()).toBe(2);
    for (let released = 0; released < 7; released++) {
      await waitFor(() => server.parked.length > 0, 10_000, "a parked call");
      expect(server.parked.length).toBeLessThanOrEqual(2);
      server.releaseOne();
    }
    const results = await Promise.all(calls);
    expect(results.map((r) => r.content)).toEqual(Array(7).fill("ok"));
    expect(server.arrived()).toBe(7);
  });

  it("a call whose signal fires while it waits leaves at once and never reaches the model", async () => {
    const limit = modelCallLimit(1);
    const model = limitModelCalls(openai(server.baseURL, "primary"), limit);
    const first = ask(model);
    await waitFor(() => server.parked.length === 1, 10_000, "the first call at the server");
    const controller = new AbortController();
    const waiting = ask(model, controller.signal);
    const third = ask(model);
    controller.abort(new Error("turn cancelled"));
    await expect(waiting).rejects.toThrow("turn cancelled");
    server.releaseOne();
    await first;
    // The slot goes to the next caller; the cancelled one never arrived.
    await waitFor(() => server.parked.length === 1, 10_000, "the third call at the server");
    server.releaseOne();
    await third;
    expect(server.arrived()).toBe(2);
    // Already aborted: refused before it waits.
    await expect(ask(model, AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
  });
});
