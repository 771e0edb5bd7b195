import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SYSTEM_PROMPT } from "../../src/agent/context/system-prompt.ts";
import type { ToolSpec } from "../../src/agent/model/chat-model.ts";
import { checkModel } from "../../src/agent/model/model-check/check-model.ts";
import { modelCheckLines } from "../../src/agent/model/model-check/findings.ts";
import { parserFor } from "../../src/agent/model/model-check/parser-hints.ts";
import type { ModelCheckResult } from "../../src/agent/model/model-check/types.ts";
import { verdictLine } from "../../src/agent/model/model-check/verdict.ts";
import { offlineToolSpecs } from "../../src/boot/offline-tool-specs.ts";
import { loadConfig } from "../../src/config.ts";
import {
  closedPortBaseURL,
  type FamilyKind,
  type FamilyServer,
  startFamilyServer,
} from "../helpers/model-server-families.ts";

const MODEL = "Qwen/Qwen2.5-7B-Instruct";
let server: FamilyServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function modelConfig(baseURL: string, model = MODEL) {
  return loadConfig({ OPENAI_BASE_URL: baseURL, HERMES_MODEL: model, HERMES_MODEL_TIMEOUT_MS: "10000" })
    .model!;
}

/** The bot's real tool specs (built-ins, as `buildTools` builds them), without a database or Slack. */
async function botSpecs(): Promise<ToolSpec[]> {
  return (await offlineToolSpecs(loadConfig({}), {})).specs;
}

async function check(
  kind: FamilyKind,
  options: { model?: string; chatDelayMs?: number; probeTimeoutMs?: number; totalTimeoutMs?: number } = {},
): Promise<ModelCheckResult> {
  const model = options.model ?? MODEL;
  server = await startFamilyServer(kind, { model, chatDelayMs: options.chatDelayMs ?? 0 });
  return checkModel({
    model: modelConfig(server.baseURL, model),
    specs: await botSpecs(),
    ...(options.probeTimeoutMs ? { probeTimeoutMs: options.probeTimeoutMs } : {}),
    ...(options.totalTimeoutMs ? { totalTimeoutMs: options.totalTimeoutMs } : {}),
  });
}

const line = (r: ModelCheckResult) => verdictLine(r.verdict);

describe("model check against each server family", () => {
  it("vLLM with its parser on: ready, max_model_len, owned_by vllm, tool results accepted, p50 of 3", async () => {
    const r = await check("vllm", { chatDelayMs: 30 });
    expect(line(r)).toBe("verdict: ready (native tool calls)");
    expect(r.verdict.hint).toBeUndefined();
    expect(r.family).toMatchObject({ id: "vllm", name: "vLLM", evidence: ["owned_by: vllm"] });
    expect(r.models).toMatchObject({ status: "ok", ids: [MODEL], listed: true });
    expect(r.contextWindow).toEqual({ tokens: 32768, source: "GET /v1/models max_model_len" });
    expect(r.toolCalls?.nativeCount).toBe(3);
    expect(r.toolResults).toEqual({ accepted: true, status: 200 });
    expect(r.latency.samplesMs).toHaveLength(3);
    expect(r.latency.p50Ms).toBeGreaterThanOrEqual(30);
    // Three probes, one tool-result round trip, then the streamed probe and the picture (in parallel);
    // nothing asked of the llama.cpp/Ollama/LM Studio endpoints.
    expect(server!.chats()).toHaveLength(6);
    const last = server!.chats().slice(4);
    expect(last.filter((q) => q.body.stream === true)).toHaveLength(1);
    expect(last.filter((q) => Array.isArray(q.body.messages?.[0]?.content))).toHaveLength(1);
    expect(server!.requests.map((q) => q.path)).not.toContain("/props");
  });

  it("probes with the bot's real tool specs and messages, and sends the result back as the bot would", async () => {
    await check("vllm");
    const specs = await botSpecs();
    const [first, , , result] = server!.chats();
    expect(first?.body.tools?.map((t) => t.function.name).sort()).toEqual(specs.map((s) => s.name).sort());
    expect(first?.body.tools?.length).toBeGreaterThanOrEqual(12);
    expect(first?.body.tool_choice).toBeUndefined();
    expect(first?.body.model).toBe(MODEL);
    expect(first?.body.messages).toEqual([
      { role: "system", content: DEFAULT_SYSTEM_PROMPT },
      { role: "user", content: "What time is it? Use the get_current_time tool." },
    ]);
    const [, , call, tool] = result?.body.messages ?? [];
    const callId = (call?.tool_calls as Array<{ id: string }> | undefined)?.[0]?.id;
    expect(callId).toMatch(/^call_/);
    expect(call).toMatchObject({
      role: "assistant",
      tool_calls: [{ function: { name: "get_current_time" } }],
    });
    expect(tool).toMatchObject({ role: "tool", tool_call_id: callId });
    expect(JSON.parse(String(tool?.content))).toMatchObject({ timezone: "UTC" });
  });

  it("vLLM with the parser off (<tool_call> text in content): works, recovered as hermes_json, hint names the flags", async () => {
    const r = await check("vllm-text");
    expect(line(r)).toBe("verdict: works (calls recovered from text: hermes_json)");
    expect(r.verdict.hint).toContain("Start vLLM with --enable-auto-tool-choice --tool-call-parser hermes.");
    expect(r.toolCalls?.nativeCount).toBe(0);
    expect(r.toolResults?.accepted).toBe(true);
    // The recovered call went back with an id of ours, answered by one tool message.
    const messages = server!.chats()[3]?.body.messages ?? [];
    const call = messages[2]?.tool_calls as Array<{ id: string }>;
    expect(call[0]?.id).toMatch(/^call_/);
    expect(messages[3]).toMatchObject({ role: "tool", tool_call_id: call[0]?.id });
    expect(modelCheckLines(r)).toContain("text format:    hermes_json");
  });

  it("vLLM refusing tools (400 auto tool choice): not usable, the parser named from the model", async () => {
    const r = await check("vllm-no-parser", { model: "Qwen/Qwen3-Coder-30B-A3B-Instruct" });
    expect(line(r)).toBe(
      'verdict: not usable (the server refuses tools: HTTP 400 "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set)',
    );
    expect(r.verdict.hint).toBe("Start vLLM with --enable-auto-tool-choice --tool-call-parser qwen3_coder.");
    // A refusal is structural: asked once, not three times.
    expect(server!.chats()).toHaveLength(1);
  });

  it("llama.cpp: /props n_ctx at the server root, owned_by llamacpp", async () => {
    const r = await check("llamacpp");
    expect(line(r)).toBe("verdict: ready (native tool calls)");
    expect(r.family).toMatchObject({ id: "llamacpp", evidence: ["owned_by: llamacpp"] });
    expect(r.contextWindow).toEqual({ tokens: 8192, source: "GET /props default_generation_settings.n_ctx" });
    expect(server!.requests.some((q) => q.method === "GET" && q.path === "/props")).toBe(true);
  });

  it("Ollama: /api/show context length, owned_by library, the model listed as :latest", async () => {
    const r = await check("ollama", { model: "qwen3" });
    expect(line(r)).toBe("verdict: ready (native tool calls)");
    expect(r.family.id).toBe("ollama");
    expect(r.family.evidence).toEqual(["owned_by: library", "model capabilities: completion, tools"]);
    expect(r.models.listed).toBe(true);
    expect(r.contextWindow).toMatchObject({
      tokens: 32768,
      source: 'POST /api/show model_info["qwen2.context_length"]',
    });
    expect(r.contextWindow?.note).toContain("ollama ps");
    expect(server!.requests.find((q) => q.path === "/api/show")?.body).toEqual({ model: "qwen3" });
  });

  it("Ollama with a model without tool support: not usable, told to pull one whose template supports tools", async () => {
    const r = await check("ollama-no-tools", { model: "gemma3:1b" });
    expect(line(r)).toBe(
      "verdict: not usable (the server refuses tools: HTTP 400 registry.ollama.ai/library/gemma3:1b:latest does not support tools)",
    );
    expect(r.verdict.hint).toContain('`ollama show gemma3:1b` must list "tools" under Capabilities');
    expect(r.family.evidence).toContain("model capabilities: completion (no tools)");
  });

  it("LM Studio: /api/v0/models max_context_length", async () => {
    const r = await check("lmstudio");
    expect(line(r)).toBe("verdict: ready (native tool calls)");
    expect(r.family).toMatchObject({ id: "lmstudio", name: "LM Studio" });
    expect(r.contextWindow).toMatchObject({
      tokens: 131072,
      source: "GET /api/v0/models max_context_length",
    });
  });

  it("a server that answers HTML: not usable, says it is not a chat completion and to check OPENAI_BASE_URL", async () => {
    const r = await check("garbage");
    expect(line(r)).toBe(
      `verdict: not usable (${server!.baseURL}/chat/completions answered with something that is not a chat completion: text/html; charset=utf-8: <!doctype html><html><body><h1>Sign in</h1></body></html>; check OPENAI_BASE_URL)`,
    );
    expect(r.models.status).toBe("not_json");
    expect(r.family.id).toBe("unknown");
  });

  it("a server that is down: not usable, names the URL and the error, says to check OPENAI_BASE_URL", async () => {
    const baseURL = await closedPortBaseURL();
    const r = await checkModel({ model: modelConfig(baseURL), specs: await botSpecs() });
    expect(line(r)).toMatch(
      new RegExp(
        `^verdict: not usable \\(cannot reach ${baseURL.replace(/\./g, "\\.")}/models: connect ECONNREFUSED [\\d.:]+; check OPENAI_BASE_URL\\)$`,
      ),
    );
    expect(r.verdict.hint).toContain("OPENAI_BASE_URL");
    expect(r.toolCalls).toBeUndefined();
  });

  it("a server that rejects tool results: not usable, with the server's words", async () => {
    const r = await check("rejects-results");
    expect(line(r)).toBe(
      "verdict: not usable (tool results are refused: HTTP 400: Unexpected message role: tool)",
    );
    expect(r.verdict.hint).toContain("`tool` messages");
    expect(r.toolCalls?.nativeCount).toBe(3);
  });
});

describe("model check bounds", () => {
  it("each probe is bounded: a model that never answers ends the check after one timeout", async () => {
    const started = Date.now();
    const r = await check("vllm", { chatDelayMs: 30_000, probeTimeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(line(r)).toBe(`verdict: not usable (${server!.baseURL}/chat/completions: no answer within 0.3 s)`);
    expect(r.verdict.hint).toContain("HERMES_MODEL_TIMEOUT_MS");
    expect(server!.chats()).toHaveLength(1);
  });

  it("the whole check is bounded too", async () => {
    const started = Date.now();
    const r = await check("vllm", { chatDelayMs: 30_000, probeTimeoutMs: 20_000, totalTimeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.verdict.status).toBe("not_usable");
  });
});

describe("which tool-call parser the hint names", () => {
  it("by model name, and by the format the model was seen writing", () => {
    const cases: Array<[string, string | undefined, string | undefined]> = [
      ["openai/gpt-oss-20b", undefined, "openai"],
      ["mistralai/Mistral-Small-3.2-24B-Instruct-2506", undefined, "mistral"],
      ["meta-llama/Llama-3.1-8B-Instruct", undefined, "llama3_json"],
      ["meta-llama/Llama-4-Scout-17B-16E-Instruct", undefined, "llama4_pythonic"],
      ["deepseek-ai/DeepSeek-V3.1", "deepseek", "deepseek_v31"],
      ["moonshotai/Kimi-K2-Instruct", undefined, "kimi_k2"],
      ["zai-org/GLM-4.5-Air", undefined, "glm45"],
      ["Qwen/Qwen3-8B", undefined, "hermes"],
      // The syntax seen wins over the name's family: this "Qwen3.5" writes JSON in <tool_call>.
      ["Qwen/Qwen3.5-9B", "hermes_json", "hermes"],
      ["my-finetune", "qwen3_coder_xml", "qwen3_coder"],
      ["my-finetune", undefined, undefined],
    ];
    for (const [model, format, parser] of cases)
      expect([model, parserFor(model, format)?.vllm]).toEqual([model, parser]);
  });
});
