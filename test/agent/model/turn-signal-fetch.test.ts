import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelRequest } from "../../../src/agent/model/chat-model.ts";
import { createOpenAIModel } from "../../../src/agent/model/openai-model.ts";
import { TURN_SIGNAL, turnSignalFetch } from "../../../src/agent/model/turn-signal-fetch.ts";

/**
 * The turn's signal reaches the model request through the client's `fetch` (not the SDK's signal
 * composition): an abort of the turn, or of the SDK's own timeout, must still cancel the request at
 * every point — before the headers, while a plain body or a stream is read — and the server must see
 * the connection go.
 */
describe("a model request carries its turn's signal", () => {
  type Handler = (req: IncomingMessage, res: ServerResponse) => void;
  let handler: Handler = (_req, res) => res.end();
  const closed: string[] = [];
  let server: Server;
  let baseURL = "";

  beforeAll(async () => {
    server = createServer((req, res) => {
      // What the client did to the connection: "aborted" when it went before the response ended.
      res.on("close", () => closed.push(res.writableFinished ? "finished" : "aborted"));
      handler(req, res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /** Resolves when the server has seen `n` connections end. */
  const connectionsEnded = (n: number) =>
    expect.poll(() => closed.length, { timeout: 5000, interval: 10 }).toBeGreaterThanOrEqual(n);

  const completion = JSON.stringify({
    id: "c1",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" }],
  });
  const model = (o: { stream?: boolean; timeoutMs?: number } = {}) =>
    createOpenAIModel({
      baseURL,
      apiKey: "k",
      // A family whose answers never open in reasoning: its stream shows as it comes.
      model: "llama-3.1-8b",
      temperature: 0,
      maxOutputTokens: 64,
      // Far beyond the test's own timeout (5 s): a request the turn's abort did not end fails the test.
      timeoutMs: o.timeoutMs ?? 60_000,
      maxRetries: 0,
      stream: o.stream,
    });
  const ask = (signal: AbortSignal, extra: Partial<ModelRequest> = {}) =>
    ({ messages: [{ role: "user", content: "hi" }], tools: [], signal, ...extra }) satisfies ModelRequest;

  it("a plain answer comes back, and the turn's signal outlives the request", async () => {
    handler = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(completion);
    const turn = new AbortController();
    const r = await model().complete(ask(turn.signal));
    expect(r.content).toBe("hello");
    turn.abort(); // after the request: nothing left to cancel, nothing thrown
  });

  it("the turn ends before the server answers: the request is cancelled at once", async () => {
    const before = closed.length;
    let received!: () => void;
    const asked = new Promise<void>((r) => (received = r));
    handler = () => received(); // never answers
    const turn = new AbortController();
    const pending = model().complete(ask(turn.signal));
    await asked;
    turn.abort(new Error("turn_timeout"));
    await expect(pending).rejects.toThrow();
    await connectionsEnded(before + 1);
    expect(closed.at(-1)).toBe("aborted");
  });

  it("the turn ends while a plain body is still coming: the read is cancelled", async () => {
    const before = closed.length;
    let headersSent!: () => void;
    const sent = new Promise<void>((r) => (headersSent = r));
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(completion.slice(0, 20)); // the rest never comes
      headersSent();
    };
    const turn = new AbortController();
    const pending = model().complete(ask(turn.signal));
    await sent;
    turn.abort(new Error("cancelled"));
    await expect(pending).rejects.toThrow();
    await connectionsEnded(before + 1);
    expect(closed.at(-1)).toBe("aborted");
  });

  const PROSE = "The VPN outage started at nine this morning, and the on-call engineer is looking into it. ";
  it("the turn ends mid-stream: the stream stops, the connection goes", async () => {
    const before = closed.length;
    let firstChunk!: () => void;
    const streaming = new Promise<void>((r) => (firstChunk = r));
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = {
        id: "c1",
        object: "chat.completion.chunk",
        created: 0,
        model: "m",
        choices: [{ index: 0, delta: { role: "assistant", content: PROSE }, finish_reason: null }],
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`); // and then nothing
      firstChunk();
    };
    const turn = new AbortController();
    const texts: string[] = [];
    const pending = model({ stream: true }).complete(ask(turn.signal, { onText: (t) => texts.push(t) }));
    await streaming;
    // The answer is being read (its first words are shown) when the turn ends.
    await expect.poll(() => texts.join("").length, { timeout: 5000 }).toBeGreaterThan(0);
    turn.abort(new Error("cancelled"));
    await expect(pending).rejects.toThrow();
    await connectionsEnded(before + 1);
    expect(closed.at(-1)).toBe("aborted");
  });

  it("the client's own timeout still ends a request that carries a turn's signal", async () => {
    const before = closed.length;
    handler = () => {}; // never answers
    const turn = new AbortController();
    await expect(model({ timeoutMs: 200 }).complete(ask(turn.signal))).rejects.toThrow(
      /did not answer within 0.2 s/,
    );
    expect(turn.signal.aborted).toBe(false);
    await connectionsEnded(before + 1);
  });

  it("a turn already over sends nothing", async () => {
    let requests = 0;
    handler = (_req, res) => {
      requests++;
      res.end(completion);
    };
    const turn = new AbortController();
    turn.abort(new Error("cancelled"));
    await expect(model().complete(ask(turn.signal))).rejects.toThrow();
    expect(requests).toBe(0);
  });

  it("the fetch alone: either signal cancels; without a turn's signal the request is the caller's", async () => {
    const seen: Array<AbortSignal | null | undefined> = [];
    const base = ((_input: unknown, init?: RequestInit) => {
      seen.push(init?.signal);
      return new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)),
      );
    }) as typeof fetch;
    const f = turnSignalFetch(base);

    const sdk = new AbortController();
    const plain = f("http://x/", { signal: sdk.signal });
    expect(seen[0]).toBe(sdk.signal); // untouched
    sdk.abort(new Error("sdk"));
    await expect(plain).rejects.toThrow("sdk");

    const turn = new AbortController();
    const sdk2 = new AbortController();
    const byTurn = f("http://x/", { signal: sdk2.signal, [TURN_SIGNAL]: turn.signal } as RequestInit);
    turn.abort(new Error("turn"));
    await expect(byTurn).rejects.toThrow("turn");

    const turn3 = new AbortController();
    const sdk3 = new AbortController();
    const bySdk = f("http://x/", { signal: sdk3.signal, [TURN_SIGNAL]: turn3.signal } as RequestInit);
    sdk3.abort(new Error("timeout"));
    await expect(bySdk).rejects.toThrow("timeout");
    expect(turn3.signal.aborted).toBe(false);
  });
});
