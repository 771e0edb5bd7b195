import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { ErrorCode, WebClient } from "@slack/web-api";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { httpFetch, IDLE_SOCKET_MS } from "../../src/http/http-fetch.ts";

/**
 * The model client's fetch on undici's Agent, against a raw HTTP server: what the openai SDK sends arrives
 * whole, answers come back as the built-in fetch would give them (plain, compressed, streamed as they
 * arrive), aborts reject with the signal's reason and close the connection, connections are reused,
 * and what it does not handle goes to the built-in fetch.
 */
describe("httpFetch", () => {
  type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
  let handler: Handler = (_req, res) => res.end();
  const closed: string[] = [];
  let connections = 0;
  let server: Server;
  let base = "";

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.on("close", () => closed.push(res.writableFinished ? "finished" : "aborted"));
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
    });
    server.on("connection", () => connections++);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  afterEach(() => {
    delete process.env.HTTPS_PROXY;
  });

  const completion = (content: string) =>
    JSON.stringify({
      id: "c1",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    });
  const connectionsEnded = (n: number) =>
    expect.poll(() => closed.length, { timeout: 5000, interval: 10 }).toBeGreaterThanOrEqual(n);

  it("the SDK's request arrives whole (method, headers, a body with non-ASCII text), its answer comes back", async () => {
    let seen: { method?: string; headers?: IncomingMessage["headers"]; body?: string } = {};
    handler = (req, res, body) => {
      seen = { method: req.method, headers: req.headers, body };
      res
        .writeHead(200, { "content-type": "application/json", "x-request-id": "r1" })
        .end(completion("hallo ✓"));
    };
    const client = new OpenAI({
      baseURL: `${base}/v1`,
      apiKey: "sk-test",
      maxRetries: 0,
      fetch: httpFetch(),
    });
    const { data, response } = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "grüß dich 😀" }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe("hallo ✓");
    expect(response.headers.get("x-request-id")).toBe("r1");
    expect(seen.method).toBe("POST");
    expect(seen.headers?.authorization).toBe("Bearer sk-test");
    expect(seen.headers?.["content-type"]).toBe("application/json");
    expect(Number(seen.headers?.["content-length"])).toBe(Buffer.byteLength(seen.body ?? ""));
    expect(JSON.parse(seen.body ?? "{}").messages[0].content).toBe("grüß dich 😀");
  });

  it("keeps the connection alive: sequential requests share one", async () => {
    handler = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(completion("x"));
    const fetch = httpFetch();
    const before = connections;
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${base}/v1/chat/completions`, { method: "POST", body: "{}" });
      expect(await r.json()).toMatchObject({ object: "chat.completion" });
    }
    expect(connections - before).toBeLessThanOrEqual(1);
  });

  it("a kept-alive connection the server closed while idle is not reused: the next request opens another", async () => {
    const idle = await ownServer((_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end("{}"),
    );
    idle.server.keepAliveTimeout = 50;
    try {
      const fetch = httpFetch();
      expect((await fetch(idle.url, { method: "POST", body: "{}" })).status).toBe(200);
      // The server drops the idle connection after its keep-alive timeout.
      await expect.poll(() => idle.sockets[0]?.closed, { timeout: 5000, interval: 10 }).toBe(true);
      expect((await fetch(idle.url, { method: "POST", body: "{}" })).status).toBe(200);
      expect(idle.sockets).toHaveLength(2);
    } finally {
      await idle.close();
    }
  });

  /** A server of its own whose connections the test can watch: who ended each, and how many requests it carried. */
  async function ownServer(handle: (req: IncomingMessage, res: ServerResponse, nth: number) => void) {
    const sockets: Array<{ socket: Socket; endedByClient: boolean; closed: boolean; requests: string[] }> =
      [];
    const s = createServer((req, res) => {
      const entry = sockets.find((e) => e.socket === req.socket)!;
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        entry.requests.push(Buffer.concat(chunks).toString("utf8"));
        handle(req, res, entry.requests.length);
      });
    });
    s.on("connection", (socket) => {
      const entry = { socket, endedByClient: false, closed: false, requests: [] as string[] };
      sockets.push(entry);
      socket.on("end", () => {
        entry.endedByClient = true;
      });
      socket.on("close", () => {
        entry.closed = true;
      });
    });
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    return {
      server: s,
      sockets,
      url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/x`,
      async close() {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      },
    };
  }

  it("closes an idle connection itself before the server's announced keep-alive limit, so no request meets the server's close", async () => {
    const own = await ownServer((_req, res) => res.writeHead(200).end("ok"));
    // Announces `Keep-Alive: timeout=2` and would close at 2 s: the client closes first, after ~1 s.
    own.server.keepAliveTimeout = 2000;
    try {
      expect(await (await httpFetch()(own.url, { method: "POST", body: "{}" })).text()).toBe("ok");
      expect(own.sockets).toHaveLength(1);
      await expect.poll(() => own.sockets[0]!.closed, { timeout: 30_000, interval: 20 }).toBe(true);
      expect(own.sockets[0]!.endedByClient).toBe(true);
    } finally {
      await own.close();
    }
  });

  it(`a server that announces no limit: answers that pause longer than ${IDLE_SOCKET_MS} ms (before their headers, or mid-stream) arrive whole, then the client closes the idle connections`, async () => {
    const pause = IDLE_SOCKET_MS + 500;
    const own = await ownServer((req, res) => {
      if (req.url?.endsWith("stream")) {
        // An event stream that goes quiet mid-body (a model thinking between tokens).
        res.writeHead(200, { "content-type": "text/event-stream" }).write("data: one\n\n");
        setTimeout(() => res.end("data: two\n\n"), pause);
      } else setTimeout(() => res.writeHead(200).end("slow"), pause);
    });
    own.server.keepAliveTimeout = 0; // no `Keep-Alive: timeout` header, and it never closes an idle connection
    try {
      const fetch = httpFetch();
      const [slow, streamed] = await Promise.all([
        fetch(own.url, { method: "POST", body: "{}" }).then((r) => r.text()),
        fetch(`${own.url}/stream`, { method: "POST", body: "{}" }).then((r) => r.text()),
      ]);
      expect(slow).toBe("slow");
      expect(streamed).toBe("data: one\n\ndata: two\n\n");
      expect(own.sockets).toHaveLength(2);
      await expect
        .poll(() => own.sockets.every((s) => s.closed), { timeout: 30_000, interval: 20 })
        .toBe(true);
      expect(own.sockets.map((s) => s.endedByClient)).toEqual([true, true]);
    } finally {
      await own.close();
    }
  }, 60_000);

  /** The connections (by index) each request body went on, in order. */
  const carriedOn = (sockets: Array<{ requests: string[] }>) => {
    const on = new Map<string, number[]>();
    sockets.forEach((s, i) => {
      for (const body of s.requests) on.set(body, [...(on.get(body) ?? []), i]);
    });
    return on;
  };

  it("a request the server's close or reset met on a kept-alive connection goes once more, on a new one", async () => {
    for (const drop of ["close", "reset"] as const) {
      // A connection's first request is answered, any later one dropped unanswered (as a server closing
      // it for idleness as the request arrives). Which idle connection a request goes on is undici's
      // choice: several go, so that some land on a connection that already answered one.
      const own = await ownServer((req, res, nth) => {
        if (nth === 1) res.writeHead(200).end("answered");
        else if (drop === "close") req.socket.destroy();
        else req.socket.resetAndDestroy();
      });
      try {
        const fetch = httpFetch();
        const bodies = ["first", "second ✓", "third", "fourth"];
        for (const body of bodies)
          expect(await (await fetch(own.url, { method: "POST", body })).text()).toBe("answered");
        const on = carriedOn(own.sockets);
        let retried = 0;
        for (const body of bodies) {
          const connections = on.get(body) ?? [];
          // Answered where it was a connection's first request; met a drop at most once, on a
          // kept-alive connection, then went on a connection that carried nothing else.
          expect(own.sockets[connections.at(-1) ?? -1]?.requests[0]).toBe(body);
          expect(connections.length).toBeLessThanOrEqual(2);
          if (connections.length === 2) {
            retried++;
            expect(own.sockets[connections[0] ?? -1]?.requests.indexOf(body)).toBeGreaterThan(0);
            expect(own.sockets[connections[1] ?? -1]?.requests).toEqual([body]);
          }
        }
        expect(retried).toBeGreaterThan(0);
      } finally {
        await own.close();
      }
    }
  });

  it("a close or reset on a new connection, or a second one, is not sent again: the caller sees it", async () => {
    const own = await ownServer((req) => req.socket.destroy());
    try {
      // undici's error for a connection closed before any answer.
      await expect(httpFetch()(own.url, { method: "POST", body: "once" })).rejects.toMatchObject({
        code: "UND_ERR_SOCKET",
      });
      expect(own.sockets.map((s) => s.requests)).toEqual([["once"]]);
    } finally {
      await own.close();
    }
    // Only the first connection's first request is answered: a later request fails on a new connection
    // (not sent again), or on the kept-alive one and then on a new one (not sent a third time).
    const twice = await ownServer((req, res, nth) => {
      if (nth === 1 && twice.sockets[0]?.socket === req.socket) res.writeHead(200).end("answered");
      else req.socket.destroy();
    });
    try {
      const fetch = httpFetch();
      expect(await (await fetch(twice.url, { method: "POST", body: "first" })).text()).toBe("answered");
      for (const body of ["second", "third"]) {
        await expect(fetch(twice.url, { method: "POST", body })).rejects.toMatchObject({
          code: "UND_ERR_SOCKET",
        });
        const connections = carriedOn(twice.sockets).get(body) ?? [];
        expect(connections.length).toBeGreaterThanOrEqual(1);
        expect(connections.length).toBeLessThanOrEqual(2);
        // Sent twice only when the first went on the kept-alive connection.
        if (connections.length === 2) expect(connections[0]).toBe(0);
      }
    } finally {
      await twice.close();
    }
  });

  it("decodes gzip, deflate and br answers; status, status text and other headers stay", async () => {
    const text = completion("compressed");
    for (const [encoding, encode] of [
      ["gzip", gzipSync],
      ["deflate", deflateSync],
      ["br", brotliCompressSync],
    ] as const) {
      handler = (_req, res) =>
        res
          .writeHead(201, "Made", {
            "content-type": "application/json",
            "content-encoding": encoding,
            "x-e": encoding,
          })
          .end(encode(Buffer.from(text)));
      const r = await httpFetch()(`${base}/x`, { method: "POST", body: "{}" });
      expect([r.status, r.statusText, r.headers.get("x-e"), r.headers.get("content-encoding")]).toEqual([
        201,
        "Made",
        encoding,
        null,
      ]);
      expect(await r.text()).toBe(text);
    }
  });

  it("hands an event stream over as it arrives (the first event before the server has sent the rest)", async () => {
    let sendRest!: () => void;
    const rest = new Promise<void>((r) => (sendRest = r));
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      void rest.then(() => res.end("data: two\n\n"));
    };
    const r = await httpFetch()(`${base}/s`, { method: "POST", body: "{}" });
    const reader = r.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toBe("data: one\n\n");
    sendRest();
    let tail = "";
    for (let c = await reader.read(); !c.done; c = await reader.read())
      tail += Buffer.from(c.value).toString();
    expect(tail).toBe("data: two\n\n");
  });

  it("an abort before the answer rejects with the signal's reason, and the connection goes", async () => {
    const before = closed.length;
    let received!: () => void;
    const asked = new Promise<void>((r) => (received = r));
    handler = () => received();
    const controller = new AbortController();
    const pending = httpFetch()(`${base}/slow`, { method: "POST", body: "{}", signal: controller.signal });
    await asked;
    const reason = new Error("turn_timeout");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await connectionsEnded(before + 1);
    expect(closed.at(-1)).toBe("aborted");
  });

  it("an abort while a plain body is arriving rejects; an abort mid-stream errors the stream; both close the connection", async () => {
    let before = closed.length;
    let written!: () => void;
    const partWritten = new Promise<void>((r) => (written = r));
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"partial": ', () => written());
    };
    const plain = new AbortController();
    const pending = httpFetch()(`${base}/p`, { method: "POST", body: "{}", signal: plain.signal });
    await partWritten;
    plain.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await connectionsEnded(before + 1);

    before = closed.length;
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
    };
    const streamed = new AbortController();
    const r = await httpFetch()(`${base}/s`, { method: "POST", body: "{}", signal: streamed.signal });
    const reader = r.body!.getReader();
    await reader.read();
    const reason = new Error("cancelled by the user");
    streamed.abort(reason);
    await expect(reader.read()).rejects.toThrow("cancelled by the user");
    await connectionsEnded(before + 1);
    expect(closed.at(-1)).toBe("aborted");
  });

  it("a signal already aborted sends nothing", async () => {
    const before = connections;
    const reason = new Error("over");
    await expect(
      httpFetch()(`${base}/x`, { method: "POST", body: "{}", signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(connections).toBe(before);
  });

  it("a server that goes mid-body, or is not there, rejects (the SDK's connection error)", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"cut": ', () => res.socket?.destroy());
    };
    await expect(httpFetch()(`${base}/cut`, { method: "POST", body: "{}" })).rejects.toThrow();
    const client = new OpenAI({
      baseURL: "http://127.0.0.1:1/v1",
      apiKey: "k",
      maxRetries: 0,
      fetch: httpFetch(),
    });
    await expect(client.chat.completions.create({ model: "m", messages: [] })).rejects.toBeInstanceOf(
      OpenAI.APIConnectionError,
    );
  });

  it("a 204 has no body", async () => {
    handler = (_req, res) => res.writeHead(204).end();
    const r = await httpFetch()(`${base}/none`, { method: "DELETE" });
    expect(r.status).toBe(204);
    expect(r.body).toBeNull();
  });

  it("leaves redirects, other bodies and proxied environments to the built-in fetch", async () => {
    const asked: string[] = [];
    const fallback = (async (input: string | URL | Request) => {
      asked.push(String(input));
      return new Response("from the fallback");
    }) as typeof fetch;
    handler = (_req, res) => res.writeHead(307, { location: `${base}/there` }).end();
    expect(await (await httpFetch(fallback)(`${base}/here`, { method: "POST", body: "{}" })).text()).toBe(
      "from the fallback",
    );
    await httpFetch(fallback)(`${base}/form`, { method: "POST", body: new FormData() });
    process.env.HTTPS_PROXY = "http://proxy.internal:3128";
    await httpFetch(fallback)(`${base}/proxied`, { method: "POST", body: "{}" });
    expect(asked).toEqual([`${base}/here`, `${base}/form`, `${base}/proxied`]);
  });

  it('refuses a redirect itself when the request says `redirect: "error"`, as the built-in fetch does', async () => {
    const asked: string[] = [];
    const fallback = (async (input: string | URL | Request) => {
      asked.push(String(input));
      return new Response("from the fallback");
    }) as typeof fetch;
    handler = (_req, res) => res.writeHead(302, { location: `${base}/there` }).end();
    const refused = httpFetch(fallback)(`${base}/here`, { method: "POST", body: "a=1", redirect: "error" });
    await expect(refused).rejects.toBeInstanceOf(TypeError);
    expect(asked).toEqual([]);
  });

  it("Slack's Web API client works through it: form bodies arrive whole, answers and 429s read as with the built-in fetch", async () => {
    const seen: Array<{ url: string; type: string | undefined; body: string }> = [];
    handler = (req, res, body) => {
      seen.push({ url: req.url ?? "", type: req.headers["content-type"], body });
      if (req.url === "/api/chat.update") {
        res.writeHead(429, { "retry-after": "7", "content-type": "application/json" });
        res.end(JSON.stringify({ ok: false, error: "ratelimited" }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ ok: true, channel: "C1", ts: "1700000000.000100" }));
    };
    const client = new WebClient("xoxb-test", {
      slackApiUrl: `${base}/api/`,
      fetch: httpFetch(),
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
    });
    const posted = await client.chat.postMessage({ channel: "C1", text: "Ünïcode & ✓", thread_ts: "1.2" });
    expect(posted).toMatchObject({ ok: true, ts: "1700000000.000100" });
    expect(seen[0]!.url).toBe("/api/chat.postMessage");
    expect(seen[0]!.type).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(seen[0]!.body))).toMatchObject({
      channel: "C1",
      text: "Ünïcode & ✓",
      thread_ts: "1.2",
    });
    await expect(client.chat.update({ channel: "C1", ts: "1.2", text: "x" })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 7,
    });
  });
});
