import type { ParserNames } from "./parser-hints.ts";

/**
 * What `checkModel` finds out about the configured OpenAI-compatible endpoint: plain data, printed by
 * `npm run model:check` and rendered by `/hermes model`.
 */

/** The server software, as far as its answers tell. */
export type ServerFamilyId = "vllm" | "sglang" | "llamacpp" | "ollama" | "lmstudio" | "openai" | "unknown";

export interface ServerFamily {
  id: ServerFamilyId;
  /** How people call it ("vLLM", "llama.cpp", …). */
  name: string;
  /** What gave it away (`owned_by: vllm`, `GET /props answered`, a header), for the report. */
  evidence: string[];
}

export interface ModelListFinding {
  url: string;
  /** `ok`: a JSON list was read; otherwise why not. */
  status: "ok" | "http_error" | "not_json" | "unreachable";
  ids: string[];
  /** Whether the configured model is among the ids; undefined when the list could not be read. */
  listed?: boolean;
  error?: string;
}

export interface ContextWindowFinding {
  tokens: number;
  /** Where the number came from (endpoint and field). */
  source: string;
  /** What the number means when it is not simply the serving limit. */
  note?: string;
}

/** What one chat completion with the tool specs came back as. */
export type ToolProbeOutcome =
  | { kind: "native"; calls: string[] }
  | { kind: "text"; format: string; calls: string[] }
  /** The model tried to call (a call marker is in its text) but no known format could read it. */
  | { kind: "unrecovered"; marker: string; sample: string }
  /**
   * The reply looks like a call (a tag, control token, `Action:` line, a name-and-arguments object)
   * that no reader claims: the bot would show it to the user as an answer.
   */
  | { kind: "unknown_markup"; marker: string; sample: string }
  | { kind: "no_call"; content: string }
  /** The server refused the request because of the tools (a parser or template switched off). */
  | { kind: "tools_refused"; status: number; message: string }
  | { kind: "http_error"; status: number; message: string }
  | { kind: "not_completion"; detail: string }
  | { kind: "unreachable"; error: string; timedOut: boolean };

export interface ToolProbeTry {
  outcome: ToolProbeOutcome;
  ms: number;
  /** The model wrote reasoning (a reasoning field, or think tags) besides its answer. */
  reasoning: boolean;
}

export interface ToolCallFinding {
  url: string;
  tries: ToolProbeTry[];
  /** The most capable outcome seen (native beats text beats the rest): what the verdict rests on. */
  best: ToolProbeOutcome;
  /** In how many tries the server returned `message.tool_calls`. */
  nativeCount: number;
}

export interface ToolResultFinding {
  /** True when the server answered 200 with a completion to the call's result. */
  accepted: boolean;
  status?: number;
  error?: string;
}

export interface LatencyFinding {
  /** Milliseconds of each tool probe that got a completion. */
  samplesMs: number[];
  p50Ms?: number;
}

/** How the server answered a streamed request (`stream: true`), the way the bot asks when it streams. */
export type StreamFinding =
  /** Server-sent events: `chunks` data lines; `finished` when a chunk gave the finish reason. */
  | { mode: "streams"; chunks: number; finished: boolean; toolCalls: ToolProbeOutcome }
  /** One JSON completion instead of a stream: the bot reads it as one, nothing shows while it writes. */
  | { mode: "ignores_stream"; toolCalls: ToolProbeOutcome }
  /** An HTTP error to the streamed request that the unstreamed one did not get: the bot asks unstreamed. */
  | { mode: "refuses_stream"; status: number; message: string }
  /** No answer to read (timeout, connection lost, not a completion). */
  | { mode: "no_answer"; error: string };

/** What the model made of a small picture sent as an `image_url` content part. */
export type ImageFinding =
  /** It named the picture's colour. */
  | { result: "takes_images"; answer: string }
  /** The server refused the request with the picture (HTTP error naming images, or any 4xx). */
  | { result: "refuses_images"; status: number; message: string }
  /** It answered without naming the colour: the picture never reached the model. */
  | { result: "ignores_images"; answer: string }
  | { result: "no_answer"; error: string };

export type YesNoUnknown = "yes" | "no" | "unknown";

/** What the bot may rely on at run time, read off the findings (`capabilities.ts`). */
export interface ModelCapabilities {
  /** The server streams answers (server-sent events) to `stream: true`. */
  streaming: YesNoUnknown;
  /** While streaming, calls arrive as `tool_calls` deltas (`native`), as text Hermes reads, or not at all. */
  streamingToolCalls: "native" | "text" | "no" | "unknown";
  /** The model sees `image_url` content parts. */
  images: YesNoUnknown;
}

/** Which call syntax the server's chat template writes, when the server shows its template. */
export interface TemplateFamily {
  /** The family, its syntax and its server-side parsers. */
  parsers: ParserNames;
  /** What was found in the template (a marker such as `<tool_call>`). */
  marker: string;
  /** Where the template was read (`GET /props chat_template`, `POST /api/show template`). */
  source: string;
}

export type VerdictStatus = "ready" | "works" | "not_usable";

export interface Verdict {
  status: VerdictStatus;
  /** Why, in a few words: "native tool calls", "cannot reach …". */
  reason: string;
  /** What to change, concretely (a server flag, a variable), when there is something to change. */
  hint?: string;
}

export interface ModelCheckResult {
  baseURL: string;
  model: string;
  /** How many tool specs the probes offered (the registry's, as the bot builds them). */
  toolCount: number;
  models: ModelListFinding;
  family: ServerFamily;
  contextWindow?: ContextWindowFinding;
  toolCalls?: ToolCallFinding;
  /** Undefined when no call came back to answer. */
  toolResults?: ToolResultFinding;
  /** The tool-call probe asked again with `stream: true`; undefined when the model never answered. */
  streaming?: StreamFinding;
  /** A 16×16 picture of one colour, asked for its colour; undefined when the model never answered. */
  images?: ImageFinding;
  /** The tool-call syntax the server's chat template writes, when it shows its template. */
  template?: TemplateFamily;
  capabilities: ModelCapabilities;
  latency: LatencyFinding;
  verdict: Verdict;
  durationMs: number;
}

/** One line of the report: what was looked at, and what was found. */
export interface Finding {
  label: string;
  text: string;
  /** The model's own words, verbatim (one line, cut): shown as code, never as formatting. */
  raw?: boolean;
}
