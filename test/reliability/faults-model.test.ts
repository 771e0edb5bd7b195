import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { TEST_AUDIT_KEY } from "../helpers/hermes-process.ts";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.ts";

const CHANNEL = "C0OPS";
const TURN_BUDGET_S = 6;
const MODEL_TIMEOUT_MS = 1500;

type Behaviour =
  | "html"
  | "invalid-json"
  | "empty-choices"
  | "empty-body"
  | "bad-gateway-html"
  | "never-answers"
  | "slow-steps";

/**
 * An OpenAI-compatible endpoint that misbehaves on purpose, raw over HTTP (the scripted model only
 * sends valid JSON). `slow-steps` is a model that works but slowly: a tool call per step, each answered
 * within the request timeout, until the turn's wall-clock budget runs out.
 */
function startBadModel(): Promise<{
  server: Server;
  port: number;
  set(b: Behaviour): void;
  calls(): number;
}> {
  let behaviour: Behaviour = "html";
  let calls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      calls++;
      switch (behaviour) {
        case "html":
          res.writeHead(200, { "content-type": "text/html" });
          return res.end("<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>");
        case "invalid-json":
          res.writeHead(200, { "content-type": "application/json" });
          return res.end('{"id": "chatcmpl-1", "choices": [{"message": {"role": "assist');
        case "empty-choices":
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ id: "x", object: "chat.completion", model: "m", choices: [] }));
        case "empty-body":
          res.writeHead(200, { "content-type": "application/json" });
          return res.end();
        case "bad-gateway-html":
          res.writeHead(502, { "content-type": "text/html" });
          return res.end("<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>");
        case "never-answers":
          return; // the connection stays open, nothing is ever sent
        case "slow-steps":
          setTimeout(() => {
            res.writeHead(200, { "content-type": "application/json" });
            res.end(
              JSON.stringify({
                id: `c${calls}`,
                object: "chat.completion",
                model: "m",
                choices: [
                  {
                    index: 0,
                    finish_reason: "tool_calls",
                    message: {
                      role: "assistant",
                      content: null,
                      tool_calls: [
                        {
                          id: `call_${calls}`,
                          type: "function",
                          function: { name: "get_current_time", arguments: "{}" },
                        },
                      ],
                    },
                  },
                ],
              }),
            );
          }, MODEL_TIMEOUT_MS * 0.6);
          return;
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        set: (b) => {
          behaviour = b;
        },
        calls: () => calls,
      }),
    ),
  );
}

/**
 * The model endpoint down, slow or answering garbage: the user gets one clear sentence in the thread,
 * within the turn budget, never a stack trace; the process keeps serving.
 */
describe("model endpoint faults", () => {
  let bad: Awaited<ReturnType<typeof startBadModel>>;
  let proxy: TcpProxy;
  let t: TestHermes;
  beforeAll(async () => {
    bad = await startBadModel();
    proxy = await startTcpProxy({ host: "127.0.0.1", port: bad.port });
    t = await startTestHermes({
      env: {
        OPENAI_BASE_URL: `http://127.0.0.1:${proxy.port}/v1`,
        HERMES_MODEL: "flaky",
        HERMES_AUDIT_KEY: TEST_AUDIT_KEY,
        OPENAI_API_KEY: "k",
        HERMES_MODEL_MAX_RETRIES: "1",
        HERMES_MODEL_TIMEOUT_MS: String(MODEL_TIMEOUT_MS),
        HERMES_TURN_TIMEOUT_SECONDS: String(TURN_BUDGET_S),
      },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await proxy?.close();
    await new Promise((r) => bad?.server.close(r));
  });

  /** Asks, waits for the final reply, and returns it with the time it took. */
  async function ask(text: string) {
    const started = Date.now();
    const d = await t.sender.appMention({ user: "U0USER1", channel: CHANNEL, text: `<@U0HERMES> ${text}` });
    expect(d.status).toBe(200);
    const ts = d.message!.ts;
    const reply = await waitFor(
      () =>
        (t.thread(CHANNEL, ts) ?? []).find(
          (m) => m.user === "U0HERMES" && m.ts !== ts && !m.text.startsWith(":hourglass_flowing_sand:"),
        ),
      120_000,
      "a reply",
    );
    return { text: reply.text, ms: Date.now() - started };
  }

  const noStack = (text: string) => {
    expect(text).not.toMatch(/\n\s+at \S+/);
    expect(text).not.toMatch(/node_modules|\.ts:\d+|SyntaxError|TypeError/);
  };

  const cases: Array<{ name: string; behaviour?: Behaviour; down?: boolean; says: RegExp }> = [
    { name: "down (connection refused)", down: true, says: /model .*could not be reached/i },
    {
      name: "no answer beyond the request timeout",
      behaviour: "never-answers",
      says: /did not answer within/i,
    },
    { name: "an HTML page with status 200", behaviour: "html", says: /not a chat completion/i },
    { name: "a body that is not JSON", behaviour: "invalid-json", says: /not a chat completion/i },
    { name: "an empty body", behaviour: "empty-body", says: /not a chat completion|without a message/i },
    { name: "empty choices", behaviour: "empty-choices", says: /without a message/i },
    { name: "502 with an HTML page", behaviour: "bad-gateway-html", says: /HTTP 502/ },
  ];

  for (const c of cases) {
    it(`${c.name} → a clear message within the turn budget, no stack trace`, async () => {
      if (c.down) proxy.cut();
      else bad.set(c.behaviour!);
      try {
        const { text, ms } = await ask(`what time is it? (${c.name})`);
        console.log(`model ${c.name}: reply after ${ms} ms: ${text.split("\n")[0]}`);
        expect(text).toContain(":warning:");
        expect(text).toMatch(/I could not get an answer from the model/);
        expect(text).toMatch(c.says);
        expect(text).toMatch(/Reference: run `[0-9a-f-]{36}`/);
        noStack(text);
        // The turn's own budget bounds it (the model's request timeout and one retry fit inside);
        // the margin is for delivering the reply on a busy machine, not for the model.
        expect(ms).toBeLessThan(TURN_BUDGET_S * 1000 + 10_000);
      } finally {
        proxy.restore();
      }
    }, 150_000);
  }

  it("a slow model that never finishes → the turn stops at its budget with a clear message", async () => {
    bad.set("slow-steps");
    const { text, ms } = await ask("keep checking the time");
    console.log(`model slow steps: reply after ${ms} ms: ${text}`);
    expect(text).toContain(`time budget of ${TURN_BUDGET_S} seconds`);
    noStack(text);
    expect(ms).toBeGreaterThanOrEqual(TURN_BUDGET_S * 1000 - 500);
    expect(ms).toBeLessThan(TURN_BUDGET_S * 1000 + 10_000);
    // Still serving: health is fine (the model is not part of readiness).
    expect((await fetch(`http://127.0.0.1:${t.hermes.port}/healthz`)).status).toBe(200);
  }, 150_000);
});
