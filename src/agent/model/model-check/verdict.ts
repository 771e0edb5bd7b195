import { parserFor } from "./parser-hints.ts";
import type { ModelCheckResult, ServerFamilyId, ToolProbeOutcome, Verdict } from "./types.ts";

export type VerdictInput = Pick<
  ModelCheckResult,
  "baseURL" | "model" | "models" | "family" | "toolCalls" | "toolResults" | "template"
>;

const CHECK_BASE_URL =
  "Is the server running, and is OPENAI_BASE_URL its API address (usually ending in /v1)?";

/**
 * The one-line verdict and what to change. The first blocking finding decides, in the order a person
 * would fix them: reach the server, get a chat completion, get past auth and the model name, get tool
 * calls at all, get tool results accepted. Otherwise native calls are `ready`; calls recovered from
 * text (or native only some of the time) `works`, with the server flag that would make them native.
 */
export function decideVerdict(r: VerdictInput): Verdict {
  const notUsable = (reason: string, hint?: string): Verdict => ({
    status: "not_usable",
    reason,
    ...(hint ? { hint } : {}),
  });
  const probe = r.toolCalls;
  const best = probe?.best;
  if (!best || best.kind === "unreachable") {
    const url = best ? probe.url : r.models.url;
    const error = best?.kind === "unreachable" ? best.error : (r.models.error ?? "no answer");
    if (best?.kind === "unreachable" && best.timedOut && r.models.status !== "unreachable") {
      return notUsable(
        `${url}: ${error}`,
        "The server answers but the model did not reply in time: check it has the model loaded, or raise HERMES_MODEL_TIMEOUT_MS.",
      );
    }
    return notUsable(`cannot reach ${url}: ${error}; check OPENAI_BASE_URL`, CHECK_BASE_URL);
  }
  if (best.kind === "not_completion") {
    return notUsable(
      `${probe.url} answered with something that is not a chat completion: ${best.detail}; check OPENAI_BASE_URL`,
      "Check OPENAI_BASE_URL: it must be the OpenAI-compatible API base (usually ending in /v1), not a web page or a proxy's login.",
    );
  }
  if (best.kind === "http_error") {
    return notUsable(`HTTP ${best.status} from ${probe.url}: ${best.message}`, httpHint(best.status, r));
  }
  if (best.kind === "tools_refused") {
    return notUsable(`the server refuses tools: HTTP ${best.status} ${best.message}`, toolHint(r));
  }
  if (best.kind === "unrecovered") {
    return notUsable(
      `the model wrote a tool call (${best.marker}) that no known format could read`,
      toolHint(r),
    );
  }
  if (best.kind === "unknown_markup") {
    return notUsable(
      `the model wrote something that looks like a tool call (${best.marker}) in a syntax no Hermes reader knows; it would reach users as text`,
      toolHint(r),
    );
  }
  if (best.kind === "no_call") {
    return notUsable(
      "the model answered without calling the tool",
      `${toolHint(r)} Or use a model trained for tool calling.`,
    );
  }
  if (r.toolResults && !r.toolResults.accepted) {
    return notUsable(
      `tool results are refused: ${r.toolResults.error ?? "no completion"}`,
      toolResultHint(r.family.id),
    );
  }
  const tries = probe.tries.length;
  if (best.kind === "native") {
    if (probe.nativeCount === tries) return { status: "ready", reason: "native tool calls" };
    return {
      status: "works",
      reason: `native tool calls in ${probe.nativeCount} of ${tries} tries`,
      hint: "The model does not always call the tool: a larger model, or a lower HERMES_MODEL_TEMPERATURE, calls more reliably.",
    };
  }
  return {
    status: "works",
    reason: `calls recovered from text: ${best.format}`,
    hint: `Hermes reads these calls itself; native calls are more reliable. ${toolHint(r)}`,
  };
}

/** The verdict as the one line both the CLI and Slack show. */
export function verdictLine(v: Verdict): string {
  const word = v.status === "not_usable" ? "not usable" : v.status;
  return `verdict: ${word} (${v.reason})`;
}

/** How to make this server return native tool calls for this model. */
export function toolHint(r: Pick<VerdictInput, "family" | "model" | "toolCalls" | "template">): string {
  const format = textFormatOf(r.toolCalls?.best);
  const parsers = parserFor(r.model, format, r.template?.parsers);
  const vllm = parsers?.vllm ?? "hermes";
  const sglang = parsers?.sglang ?? "qwen25";
  const guess = parsers
    ? ""
    : " (the parser that matches your model's family; hermes fits Qwen and Hermes models)";
  switch (r.family.id) {
    case "vllm":
      return `Start vLLM with --enable-auto-tool-choice --tool-call-parser ${vllm}${guess}.`;
    case "sglang":
      return sglang
        ? `Start SGLang with --tool-call-parser ${sglang}${guess}.`
        : `SGLang has no tool-call parser for this model family; serve it with vLLM --enable-auto-tool-choice --tool-call-parser ${vllm}.`;
    case "llamacpp":
      return "Start llama-server with --jinja (and --chat-template-file <template> if the GGUF's own template has no tool support).";
    case "ollama":
      return `Use a model whose template supports tools: \`ollama show ${r.model}\` must list "tools" under Capabilities (e.g. ollama pull qwen3 or llama3.1).`;
    case "lmstudio":
      return "In LM Studio, load a model with native tool-use support (the hammer badge), or one whose chat template supports tools.";
    case "openai":
      return "Use a model that supports function calling.";
    case "unknown":
      return `Turn on the server's tool-call parsing: vLLM --enable-auto-tool-choice --tool-call-parser ${vllm}${sglang ? `; SGLang --tool-call-parser ${sglang}` : ""}; llama.cpp --jinja; Ollama: a model with the "tools" capability.`;
  }
}

function toolResultHint(family: ServerFamilyId): string {
  const base = "The chat template must accept assistant tool calls and `tool` messages";
  if (family === "llamacpp")
    return `${base}: start llama-server with --jinja and a template that supports tools.`;
  if (family === "vllm" || family === "sglang")
    return `${base}: serve the model with its own tool-capable chat template (--chat-template).`;
  return `${base}: use a model (or template) with tool support.`;
}

function httpHint(status: number, r: VerdictInput): string | undefined {
  if (status === 401 || status === 403) return "Check OPENAI_API_KEY.";
  if (status === 404) {
    const listed =
      r.models.ids.length > 0 ? ` The server lists: ${r.models.ids.slice(0, 5).join(", ")}.` : "";
    return `Check HERMES_MODEL and OPENAI_BASE_URL.${listed}`;
  }
  if (status === 429) return "The server is rate limiting: try again later, or check the account's limits.";
  return undefined;
}

function textFormatOf(o: ToolProbeOutcome | undefined): string | undefined {
  return o?.kind === "text" ? o.format : undefined;
}
