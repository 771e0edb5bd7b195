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
  | { kind: "unrecovered"; marker: string }
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
  latency: LatencyFinding;
  verdict: Verdict;
  durationMs: number;
}
