import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { completionChunks, sseBody } from "./sse-completion.ts";

/** One scripted answer: a completion body, an HTTP error, or a function of the request. */
export type ScriptStep =
  | { completion: Record<string, unknown>; delayMs?: number }
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  /** A raw SSE body, sent as is (a stream cut off, an error inside a stream). */
  | { sse: string; delayMs?: number }
  /**
   * A raw SSE body in parts, written one after another; a function between them is awaited first
   * (a model still writing until the test has seen what it waits for). A function may also write
   * itself, and see the client close the request (a model that never stops, cut by the client).
   */
  | { sseParts: Array<string | ((body: SseBody) => Promise<unknown>)>; delayMs?: number }
  | ((request: RecordedRequest) => ScriptStep);

/** The open SSE response, for a scripted part that writes on its own. */
export interface SseBody {
  /** Writes; resolves once the bytes are taken (false: the client closed the request). */
  write(text: string): Promise<boolean>;
  /** Whether the client closed the request (aborted it) before the body ended. */
  readonly closed: boolean;
  /** Resolves when the client closes the request. */
  readonly whenClosed: Promise<void>;
}

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: {
    model?: string;
    messages: Array<{
      role: string;
      content?: string | null;
      tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
      tool_call_id?: string;
    }>;
    tools?: Array<{
      type: string;
      function: { name: string; description?: string; parameters: Record<string, unknown> };
    }>;
    temperature?: number;
    max_tokens?: number;
    max_completion_tokens?: number;
    stream?: boolean;
  };
  at: number;
}

/**
 * An OpenAI-compatible HTTP server for tests and benchmarks: replays scripted responses in order and
 * records every request. Runs on a real port, so the real `openai` SDK talks to it over HTTP.
 */
export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  private script: ScriptStep[] = [];
  private server: Server | undefined;
  /** When set, answers every request once the script is used up (benchmarks loop forever). */
  fallback: ScriptStep | undefined;
  /** Benchmarks turn this off so thousands of turns do not pile up in memory. */
  record = true;
  /** How a completion is cut into chunks for a request that asks for a stream (tests set their own). */
  toChunks: (completion: Record<string, unknown>) => Record<string, unknown>[] = (c) => completionChunks(c);
  /** When false, a request asking for a stream still gets one JSON body (a server that cannot stream). */
  streams = true;
  /**
   * `/v1/audio/transcriptions` (multipart): the transcript to answer for one upload, or undefined for
   * a 404 (a server without speech-to-text). Each upload is kept in `transcriptions`.
   */
  transcribe: ((upload: { body: Buffer; contentType: string }) => string) | undefined;
  readonly transcriptions: Array<{ body: Buffer; contentType: string }> = [];
  /**
   * ms this server has held requests in all, each from its last byte read to its answer written:
   * the model's own time (its scripted delay as the timer actually fired, and building the answer).
   */
  heldMs = 0;

  get baseURL(): string {
    const port = (this.server?.address() as AddressInfo | null)?.port;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** Appends steps to the script. */
  enqueue(...steps: ScriptStep[]): this {
    // A completion is serialized here, not while Hermes waits for it: the server shares the test's
    // thread, and stringifying megabytes of scripted arguments then would count as Hermes' own time
    // in the tests that measure its event loop.
    for (const step of steps)
      if (typeof step === "object" && "completion" in step)
        this.serialized.set(step, JSON.stringify(step.completion));
    this.script.push(...steps);
    return this;
  }
  private readonly serialized = new WeakMap<object, string>();

  reset(): void {
    this.script = [];
    this.requests.length = 0;
    this.fallback = undefined;
    this.toChunks = (c) => completionChunks(c);
    this.streams = true;
  }

  get remaining(): number {
    return this.script.length;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const heldFrom = performance.now();
        if ((req.url ?? "").endsWith("/audio/transcriptions")) {
          const upload = { body: Buffer.concat(chunks), contentType: req.headers["content-type"] ?? "" };
          this.transcriptions.push(upload);
          const transcript = this.transcribe?.(upload);
          res.writeHead(transcript === undefined ? 404 : 200, { "content-type": "application/json" });
          res.end(
            JSON.stringify(
              transcript === undefined ? { error: { message: "no such route" } } : { text: transcript },
            ),
          );
          return;
        }
        const text = Buffer.concat(chunks).toString("utf8");
        const recorded: RecordedRequest = {
          path: req.url ?? "",
          headers: req.headers,
          body: text ? JSON.parse(text) : { messages: [] },
          at: Date.now(),
        };
        if (this.record) this.requests.push(recorded);
        let step = this.script.shift() ?? this.fallback;
        while (typeof step === "function") step = step(recorded);
        if (!step) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: "scripted model: script exhausted", type: "test" } }));
          return;
        }
        if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
        if ("sse" in step) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(step.sse);
        } else if ("sseParts" in step) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          let closed = false;
          const whenClosed = new Promise<void>((resolve) =>
            res.on("close", () => {
              closed = !res.writableFinished;
              resolve();
            }),
          );
          const body: SseBody = {
            write: (text) =>
              closed || res.destroyed
                ? Promise.resolve(false)
                : new Promise((resolve) => res.write(text, (err) => resolve(!err && !res.destroyed))),
            get closed() {
              return closed;
            },
            whenClosed,
          };
          for (const part of step.sseParts) {
            if (typeof part === "string") res.write(part);
            else await part(body);
          }
          res.end();
        } else if ("completion" in step && recorded.body.stream && this.streams) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(sseBody(this.toChunks(step.completion)));
        } else if ("completion" in step) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(this.serialized.get(step) ?? JSON.stringify(step.completion));
        } else {
          res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
          res.end(
            JSON.stringify(step.body ?? { error: { message: `scripted HTTP ${step.status}`, type: "test" } }),
          );
        }
        // Once the answer is written: its bytes are with the kernel, the model's part is done.
        this.heldMs += performance.now() - heldFrom;
      });
    });
    this.server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

let seq = 0;
const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };

/** A completion with tool calls (arguments given as objects are JSON-encoded, strings kept raw). */
export function toolCalls(
  calls: Array<{ name: string; args?: unknown; id?: string }>,
  finish = "tool_calls",
): ScriptStep {
  return {
    completion: {
      id: `chatcmpl-${++seq}`,
      object: "chat.completion",
      created: 1764420000,
      model: "scripted",
      choices: [
        {
          index: 0,
          finish_reason: finish,
          message: {
            role: "assistant",
            content: null,
            tool_calls: calls.map((c, i) => ({
              id: c.id ?? `call_${seq}_${i}`,
              type: "function",
              function: {
                name: c.name,
                arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {}),
              },
            })),
          },
        },
      ],
      usage,
    },
  };
}

/** A step that does not answer before its process is killed (the delay only bounds a hang). */
export function stalled(step: ScriptStep): ScriptStep {
  return { ...(step as { completion: Record<string, unknown> }), delayMs: 120_000 };
}

/** A completion with a plain answer. */
export function answer(text: string, finish = "stop"): ScriptStep {
  return {
    completion: {
      id: `chatcmpl-${++seq}`,
      object: "chat.completion",
      created: 1764420000,
      model: "scripted",
      choices: [{ index: 0, finish_reason: finish, message: { role: "assistant", content: text } }],
      usage,
    },
  };
}

/** A completion whose assistant message is given as is (text calls, reasoning fields, odd shapes). */
export function assistantMessage(message: Record<string, unknown>, finish = "stop"): ScriptStep {
  return {
    completion: {
      id: `chatcmpl-${++seq}`,
      object: "chat.completion",
      created: 1764420000,
      model: "scripted",
      choices: [{ index: 0, finish_reason: finish, message: { role: "assistant", ...message } }],
      usage,
    },
  };
}
