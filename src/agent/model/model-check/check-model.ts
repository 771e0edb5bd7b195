import type { ModelConfig } from "../../../config.ts";
import { errorMessage } from "../../../core/errors.ts";
import type { ToolSpec } from "../chat-model.ts";
import { toolFormatContext } from "../tool-formats/context.ts";
import { capabilitiesOf, rememberModelCheck } from "./capabilities.ts";
import { findContextWindow } from "./context-window.ts";
import { apiBase, serverRoot } from "./endpoints.ts";
import { probeImages } from "./image-probe.ts";
import { latencyOf } from "./latency.ts";
import { listModels } from "./model-list.ts";
import { guessServerFamily } from "./server-family.ts";
import { fetchServerInfo, type ServerInfo } from "./server-info.ts";
import { probeStreaming } from "./stream-probe.ts";
import { templateFamily } from "./template-family.ts";
import { type ProbeAnswer, probeSpecs, probeToolCall } from "./tool-call-probe.ts";
import { probeToolResult } from "./tool-result-probe.ts";
import type {
  ImageFinding,
  ModelCheckResult,
  StreamFinding,
  ToolCallFinding,
  ToolProbeOutcome,
  ToolResultFinding,
} from "./types.ts";
import { decideVerdict } from "./verdict.ts";

export interface CheckModelOptions {
  model: ModelConfig;
  /** The tool specs the bot offers (the registry's `specs()`); the probe adds `get_current_time` if missing. */
  specs: readonly ToolSpec[];
  /** Each model request's bound. Default: the configured model timeout, at most 20 s. */
  probeTimeoutMs?: number;
  /** The whole check's bound. Default 90 s. */
  totalTimeoutMs?: number;
  /** Tool-call probes (their latencies give the p50). Default 3. */
  tries?: number;
}

const PROBE_CAP_MS = 20_000;
const TOTAL_MS = 90_000;
/** `/models`, `/props`, `/api/show`: metadata answers at once or not at all. */
const METADATA_CAP_MS = 5_000;

/** Outcomes in which the model itself answered: worth asking again; anything else ends the probing. */
const ANSWERED = new Set<ToolProbeOutcome["kind"]>([
  "native",
  "text",
  "unrecovered",
  "unknown_markup",
  "no_call",
]);
const RANK: ToolProbeOutcome["kind"][] = [
  "native",
  "text",
  "unrecovered",
  "unknown_markup",
  "no_call",
  "tools_refused",
  "http_error",
  "not_completion",
  "unreachable",
];

/**
 * Probes the configured OpenAI-compatible endpoint the way the bot will use it: lists its models,
 * works out which server software it is and its context window, asks a question that needs a tool
 * (with the bot's real tool specs) a few times, sends a tool result back, asks the tool question again
 * streamed and a picture's colour, and decides whether Hermes can work with it and what to change.
 * Every request is bounded and so is the whole check; it never throws: whatever goes wrong is a
 * finding. The result is remembered for this process (`lastModelCheck`, `capabilities.ts`).
 */
export async function checkModel(o: CheckModelOptions): Promise<ModelCheckResult> {
  const started = performance.now();
  try {
    const result = await runCheck(o, started);
    rememberModelCheck(result);
    return result;
  } catch (err) {
    // Requests never throw (they come back as findings), so this is a bug of ours: still a report.
    const baseURL = apiBase(o.model.baseURL);
    const url = `${baseURL}/models`;
    return {
      baseURL,
      model: o.model.model,
      toolCount: o.specs.length,
      models: { url, status: "unreachable", ids: [], error: "not checked" },
      family: { id: "unknown", name: "unknown", evidence: [] },
      latency: { samplesMs: [] },
      verdict: { status: "not_usable", reason: `the check itself failed: ${errorMessage(err)}` },
      capabilities: capabilitiesOf({}),
      durationMs: Math.round(performance.now() - started),
    };
  }
}

async function runCheck(o: CheckModelOptions, started: number): Promise<ModelCheckResult> {
  const total = o.totalTimeoutMs ?? TOTAL_MS;
  const deadline = Date.now() + total;
  const signal = AbortSignal.timeout(total);
  const probeMs = o.probeTimeoutMs ?? Math.min(o.model.timeoutMs, PROBE_CAP_MS);
  const within = (ms: number) => Math.max(1, Math.min(ms, deadline - Date.now()));
  const base = apiBase(o.model.baseURL);
  const { model, apiKey } = o.model;
  const specs = probeSpecs(o.specs);
  const durationMs = () => Math.round(performance.now() - started);
  const metaMs = () => within(Math.min(probeMs, METADATA_CAP_MS));

  const list = await listModels({ base, model, apiKey, timeoutMs: metaMs(), signal });
  const modelsAnswer = list.answer.ok ? [list.answer.headers] : [];
  const first = guessServerFamily({ baseURL: base, entries: list.entries, headers: modelsAnswer });
  const refused = !list.answer.ok && !list.answer.timedOut;
  const info: ServerInfo =
    refused || first.id === "openai"
      ? { headers: [] }
      : await fetchServerInfo({
          root: serverRoot(o.model.baseURL),
          model,
          apiKey,
          family: first.id,
          timeoutMs: metaMs(),
          signal,
        });
  const family = guessServerFamily({
    baseURL: base,
    entries: list.entries,
    headers: [...modelsAnswer, ...info.headers],
    props: info.props,
    ollamaShow: info.ollamaShow,
    lmstudioModels: info.lmstudioModels,
  });
  const entry = list.entries.find((e) => e.id === model || e.id === `${model}:latest`);
  const contextWindow = findContextWindow({ model, entry, ...info });
  const template = templateFamily(info);

  let toolCalls: ToolCallFinding | undefined;
  let toolResults: ToolResultFinding | undefined;
  let streaming: StreamFinding | undefined;
  let images: ImageFinding | undefined;
  const answers: ProbeAnswer[] = [];
  if (!refused) {
    const chat = {
      url: `${base}/chat/completions`,
      model,
      apiKey,
      temperature: o.model.temperature,
      maxTokens: o.model.maxOutputTokens,
      signal,
    };
    const ctx = toolFormatContext(specs);
    for (let i = 0; i < (o.tries ?? 3) && deadline - Date.now() > 0; i++) {
      const answer = await probeToolCall({ ...chat, timeoutMs: within(probeMs) }, specs, ctx);
      answers.push(answer);
      if (!ANSWERED.has(answer.attempt.outcome.kind)) break;
    }
    toolCalls = summarize(chat.url, answers);
    const withCalls = answers.find((a) => a.calls.length > 0);
    if (withCalls && deadline - Date.now() > 0) {
      toolResults = await probeToolResult({ ...chat, timeoutMs: within(probeMs) }, specs, withCalls.calls);
    }
    // Only a model that answered is worth asking how it streams and whether it sees pictures.
    if (answers.some((a) => ANSWERED.has(a.attempt.outcome.kind)) && deadline - Date.now() > 0) {
      [streaming, images] = await Promise.all([
        probeStreaming({ ...chat, timeoutMs: within(probeMs) }, specs, ctx),
        probeImages({ ...chat, timeoutMs: within(probeMs) }),
      ]);
    }
  }

  const partial = {
    baseURL: base,
    model,
    toolCount: specs.length,
    models: list.finding,
    family,
    contextWindow,
    toolCalls,
    toolResults,
    ...(streaming ? { streaming } : {}),
    ...(images ? { images } : {}),
    ...(template ? { template } : {}),
  };
  return {
    ...partial,
    capabilities: capabilitiesOf(partial),
    latency: latencyOf(answers.filter((a) => ANSWERED.has(a.attempt.outcome.kind)).map((a) => a.attempt.ms)),
    verdict: decideVerdict(partial),
    durationMs: durationMs(),
  };
}

function summarize(url: string, answers: ProbeAnswer[]): ToolCallFinding | undefined {
  if (answers.length === 0) return undefined;
  const tries = answers.map((a) => a.attempt);
  const best = [...tries].sort((a, b) => RANK.indexOf(a.outcome.kind) - RANK.indexOf(b.outcome.kind))[0]!
    .outcome;
  return { url, tries, best, nativeCount: tries.filter((t) => t.outcome.kind === "native").length };
}
