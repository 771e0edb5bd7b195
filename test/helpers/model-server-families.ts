import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { completionChunks, sseBody } from "./sse-completion.ts";

/** One request a family server saw. */
export interface SeenRequest {
  method: string;
  path: string;
  body: {
    messages?: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
    tools?: Array<{ type: string; function: { name: string } }>;
    tool_choice?: unknown;
    [key: string]: unknown;
  };
}

interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

type Route = (req: SeenRequest) => Reply | undefined;

export type FamilyKind =
  | "vllm"
  | "vllm-text"
  | "vllm-no-parser"
  | "llamacpp"
  | "ollama"
  | "ollama-no-tools"
  | "lmstudio"
  | "garbage"
  | "rejects-results"
  /** vLLM whose model answers the tool question with `options.markup` (call-like text no reader knows). */
  | "unknown-markup"
  /** llama.cpp whose `/props` shows `options.chatTemplate`, and whose model answers with `options.markup`. */
  | "llamacpp-unknown-markup";

export interface FamilyServer {
  /** The OpenAI API base (`…/v1`), what OPENAI_BASE_URL would be. */
  baseURL: string;
  requests: SeenRequest[];
  /** Chat completion requests only. */
  chats(): SeenRequest[];
  stop(): Promise<void>;
}

export interface FamilyOptions {
  model?: string;
  /** Added to every chat completion (latency is measured). */
  chatDelayMs?: number;
  /**
   * How a chat completion asked with `stream: true` is answered: as server-sent events (`streams`,
   * the default), as one JSON body (`ignores`), or with a 400 (`refuses`).
   */
  stream?: "streams" | "ignores" | "refuses";
  /**
   * How a request with an `image_url` part is answered: the picture's colour (`takes`), a 400 naming
   * images (`refuses`), or an answer that never saw it (`ignores`, the default).
   */
  images?: "takes" | "refuses" | "ignores";
  /** The reply of the `*-unknown-markup` kinds to the tool question. */
  markup?: string;
  /** `chat_template` of the `llamacpp-unknown-markup` kind's `/props`. */
  chatTemplate?: string;
}

/** The default answer of the `*-unknown-markup` kinds: a call in a syntax no reader knows, to a tool never offered. */
export const UNKNOWN_MARKUP = '<xyz_call>{"name": "lookup_weather", "arguments": {"city": "Par</xyz_call>';

const created = 1764420000;
let seq = 0;

function completion(model: string, message: Record<string, unknown>, finish: string) {
  return {
    id: `chatcmpl-${++seq}`,
    object: "chat.completion",
    created,
    model,
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920 },
  };
}

const afterToolResult = (req: SeenRequest) => req.body.messages?.some((m) => m.role === "tool") ?? false;

/** Native calls until a tool result comes back, then a plain answer: a server whose parser is on. */
function nativeChat(model: string, delayMs = 0): Route {
  return (req) => {
    if (req.method !== "POST" || !req.path.endsWith("/v1/chat/completions")) return undefined;
    if (afterToolResult(req))
      return { delayMs, body: completion(model, { content: "It is 12:00 UTC." }, "stop") };
    const call = {
      id: `call_${++seq}`,
      type: "function",
      function: { name: "get_current_time", arguments: "{}" },
    };
    return { delayMs, body: completion(model, { content: null, tool_calls: [call] }, "tool_calls") };
  };
}

/** vLLM without a tool parser, tools sent with tool_choice "none": the template's `<tool_call>` text comes back as content. */
function textChat(model: string, delayMs = 0): Route {
  return (req) => {
    if (req.method !== "POST" || !req.path.endsWith("/v1/chat/completions")) return undefined;
    if (afterToolResult(req))
      return { delayMs, body: completion(model, { content: "It is 12:00 UTC." }, "stop") };
    const content = '<tool_call>\n{"name": "get_current_time", "arguments": {}}\n</tool_call>';
    return { delayMs, body: completion(model, { content }, "stop") };
  };
}

/** A model answering the tool question with `markup`, and the tool result with a plain answer. */
function markupChat(model: string, markup: string, delayMs = 0): Route {
  return (req) => {
    if (req.method !== "POST" || !req.path.endsWith("/v1/chat/completions")) return undefined;
    if (afterToolResult(req))
      return { delayMs, body: completion(model, { content: "It is 12:00 UTC." }, "stop") };
    return { delayMs, body: completion(model, { content: markup }, "stop") };
  };
}

const hasImage = (req: SeenRequest) =>
  req.body.messages?.some(
    (m) => Array.isArray(m.content) && m.content.some((p) => (p as { type?: unknown }).type === "image_url"),
  ) ?? false;

/** The answer to a picture, as `options.images` says; undefined for requests without one. */
function imageReply(req: SeenRequest, o: FamilyOptions, model: string): Reply | undefined {
  if (req.method !== "POST" || !req.path.endsWith("/v1/chat/completions") || !hasImage(req)) return undefined;
  const delayMs = o.chatDelayMs ?? 0;
  switch (o.images ?? "ignores") {
    case "takes":
      return { delayMs, body: completion(model, { content: "Red." }, "stop") };
    case "refuses":
      return {
        delayMs,
        status: 400,
        body: {
          object: "error",
          message: `${model} is not a multimodal model: image input is not supported`,
          type: "BadRequestError",
          code: 400,
        },
      };
    case "ignores":
      return {
        delayMs,
        body: completion(model, { content: "I cannot see any picture. Could you describe it?" }, "stop"),
      };
  }
}

function json(body: unknown, headers: Record<string, string> = {}): Reply {
  return { body, headers };
}

function get(path: string, reply: () => Reply): Route {
  return (req) => (req.method === "GET" && req.path === path ? reply() : undefined);
}

function routesFor(kind: FamilyKind, model: string, delayMs: number, o: FamilyOptions): Route[] {
  const uvicorn = { server: "uvicorn" };
  const vllmModels = get("/v1/models", () =>
    json(
      {
        object: "list",
        data: [{ id: model, object: "model", created, owned_by: "vllm", root: model, max_model_len: 32768 }],
      },
      uvicorn,
    ),
  );
  switch (kind) {
    case "vllm":
      return [vllmModels, nativeChat(model, delayMs)];
    case "vllm-text":
      return [vllmModels, textChat(model, delayMs)];
    case "unknown-markup":
      return [vllmModels, markupChat(model, o.markup ?? UNKNOWN_MARKUP, delayMs)];
    case "llamacpp-unknown-markup":
      return [
        get("/v1/models", () =>
          json({ object: "list", data: [{ id: model, object: "model", created, owned_by: "llamacpp" }] }),
        ),
        get("/props", () =>
          json({
            default_generation_settings: { n_ctx: 8192 },
            total_slots: 1,
            ...(o.chatTemplate !== undefined ? { chat_template: o.chatTemplate } : {}),
          }),
        ),
        markupChat(model, o.markup ?? UNKNOWN_MARKUP, delayMs),
      ];
    case "vllm-no-parser":
      return [
        vllmModels,
        (req) =>
          req.path === "/v1/chat/completions"
            ? {
                status: 400,
                body: {
                  object: "error",
                  message:
                    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
                  type: "BadRequestError",
                  code: 400,
                },
              }
            : undefined,
      ];
    case "rejects-results":
      return [
        vllmModels,
        (req) =>
          req.path === "/v1/chat/completions" && afterToolResult(req)
            ? {
                status: 400,
                body: {
                  error: { message: "Unexpected message role: tool", type: "BadRequestError", code: 400 },
                },
              }
            : undefined,
        nativeChat(model, delayMs),
      ];
    case "llamacpp":
      return [
        get("/v1/models", () =>
          json({
            object: "list",
            data: [
              {
                id: model,
                object: "model",
                created,
                owned_by: "llamacpp",
                meta: { n_ctx_train: 131072, n_params: 7e9 },
              },
            ],
          }),
        ),
        get("/props", () =>
          json({
            default_generation_settings: { n_ctx: 8192, params: { temperature: 0.8 } },
            total_slots: 1,
            model_path: `/models/${model}.gguf`,
            chat_template_caps: { supports_tools: true },
          }),
        ),
        nativeChat(model, delayMs),
      ];
    case "ollama":
    case "ollama-no-tools": {
      const tools = kind === "ollama";
      return [
        get("/v1/models", () =>
          json({
            object: "list",
            data: [{ id: `${model}:latest`, object: "model", created, owned_by: "library" }],
          }),
        ),
        (req) =>
          req.method === "POST" && req.path === "/api/show"
            ? json({
                parameters: 'stop "<|im_start|>"\nstop "<|im_end|>"',
                model_info: { "general.architecture": "qwen2", "qwen2.context_length": 32768 },
                capabilities: tools ? ["completion", "tools"] : ["completion"],
              })
            : undefined,
        tools
          ? nativeChat(model, delayMs)
          : (req) =>
              req.path === "/v1/chat/completions"
                ? {
                    status: 400,
                    body: {
                      error: {
                        message: `registry.ollama.ai/library/${model}:latest does not support tools`,
                        type: "api_error",
                      },
                    },
                  }
                : undefined,
      ];
    }
    case "lmstudio":
      return [
        get("/v1/models", () =>
          json({ object: "list", data: [{ id: model, object: "model", owned_by: "organization_owner" }] }),
        ),
        get("/api/v0/models", () =>
          json({
            object: "list",
            data: [
              {
                id: model,
                object: "model",
                type: "llm",
                publisher: "lmstudio-community",
                arch: "qwen2",
                compatibility_type: "gguf",
                quantization: "Q4_K_M",
                state: "loaded",
                max_context_length: 131072,
              },
            ],
          }),
        ),
        nativeChat(model, delayMs),
      ];
    case "garbage":
      return [
        () => ({
          headers: { "content-type": "text/html; charset=utf-8" },
          body: "<!doctype html><html><body><h1>Sign in</h1></body></html>",
        }),
      ];
  }
}

/**
 * A local HTTP server that answers like one OpenAI-compatible server family does: its `/v1/models`
 * (with that family's `owned_by` and extra fields), its own endpoints (`/props`, `/api/show`,
 * `/api/v0/models`) and its way of answering a chat completion with tools; `stream: true` and
 * pictures as `options` say. Records every request.
 */
export async function startFamilyServer(
  kind: FamilyKind,
  options: FamilyOptions = {},
): Promise<FamilyServer> {
  const model = options.model ?? "qwen2.5-7b-instruct";
  const routes: Route[] = [
    (req) => imageReply(req, options, model),
    (req) =>
      req.body.stream === true && options.stream === "refuses" && req.path.endsWith("/v1/chat/completions")
        ? {
            status: 400,
            body: {
              error: { message: "stream is not supported by this server", type: "invalid_request_error" },
            },
          }
        : undefined,
    ...routesFor(kind, model, options.chatDelayMs ?? 0, options),
  ];
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: SeenRequest["body"] = {};
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        // recorded as empty
      }
      const seen: SeenRequest = { method: req.method ?? "GET", path: (req.url ?? "/").split("?")[0]!, body };
      requests.push(seen);
      const reply = routes.map((r) => r(seen)).find((r) => r !== undefined);
      if (reply?.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (!reply) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${seen.method} ${seen.path}` } }));
        return;
      }
      const streamed =
        seen.body.stream === true &&
        (options.stream ?? "streams") === "streams" &&
        (reply.status ?? 200) === 200 &&
        (reply.body as { object?: unknown } | null)?.object === "chat.completion";
      if (streamed) {
        // Cut as a server streams: role first, text in pieces, each call's name then its arguments.
        res.writeHead(200, { "content-type": "text/event-stream", ...reply.headers });
        res.end(sseBody(completionChunks(reply.body as Record<string, unknown>)));
        return;
      }
      const isText = typeof reply.body === "string";
      res.writeHead(reply.status ?? 200, {
        "content-type": isText ? "text/plain" : "application/json",
        ...reply.headers,
      });
      res.end(isText ? (reply.body as string) : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    chats: () => requests.filter((r) => r.path === "/v1/chat/completions"),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An API base on a port nothing listens on (bound, then closed): a server that is down. */
export async function closedPortBaseURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
