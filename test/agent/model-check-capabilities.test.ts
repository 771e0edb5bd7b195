import { inflateSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/agent/model/chat-model.ts";
import {
  checkedCapabilities,
  forgetModelChecks,
  lastModelCheck,
  modelTakesImages,
} from "../../src/agent/model/model-check/capabilities.ts";
import { checkModel } from "../../src/agent/model/model-check/check-model.ts";
import { modelCheckLines } from "../../src/agent/model/model-check/findings.ts";
import { checkModelImages } from "../../src/agent/model/model-check/image-check.ts";
import { IMAGE_QUESTION } from "../../src/agent/model/model-check/image-probe.ts";
import { parserFor } from "../../src/agent/model/model-check/parser-hints.ts";
import { templateFamily } from "../../src/agent/model/model-check/template-family.ts";
import type { ModelCheckResult } from "../../src/agent/model/model-check/types.ts";
import { callLikeMarker, rawSample } from "../../src/agent/model/model-check/unknown-markup.ts";
import { verdictLine } from "../../src/agent/model/model-check/verdict.ts";
import { offlineToolSpecs } from "../../src/boot/offline-tool-specs.ts";
import { loadConfig } from "../../src/config.ts";
import {
  type FamilyKind,
  type FamilyOptions,
  type FamilyServer,
  startFamilyServer,
  UNKNOWN_MARKUP,
} from "../helpers/model-server-families.ts";

const MODEL = "Qwen/Qwen2.5-7B-Instruct";
let server: FamilyServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
  forgetModelChecks();
});

function modelConfig(baseURL: string, model = MODEL) {
  return loadConfig({ OPENAI_BASE_URL: baseURL, HERMES_MODEL: model, HERMES_MODEL_TIMEOUT_MS: "10000" })
    .model!;
}

let specs: ToolSpec[] | undefined;
async function botSpecs(): Promise<ToolSpec[]> {
  specs ??= (await offlineToolSpecs(loadConfig({}), {})).specs;
  return specs;
}

async function check(kind: FamilyKind, options: FamilyOptions = {}): Promise<ModelCheckResult> {
  const model = options.model ?? MODEL;
  server = await startFamilyServer(kind, { ...options, model });
  return checkModel({ model: modelConfig(server.baseURL, model), specs: await botSpecs() });
}

const lineOf = (r: ModelCheckResult, label: string) =>
  modelCheckLines(r).find((l) => l.startsWith(`${label}:`));

const streamedRequests = () => server!.chats().filter((q) => q.body.stream === true);
const imageRequests = () =>
  server!.chats().filter((q) => q.body.messages?.some((m) => Array.isArray(m.content)));

describe("streaming: the tool question asked again with stream: true", () => {
  it("a server that streams with native tool_calls deltas: streams, native", async () => {
    const r = await check("vllm");
    expect(r.streaming).toMatchObject({
      mode: "streams",
      finished: true,
      toolCalls: { kind: "native", calls: ["get_current_time"] },
    });
    expect(r.capabilities).toMatchObject({ streaming: "yes", streamingToolCalls: "native" });
    expect(lineOf(r, "streaming")).toMatch(/^streaming: {6}yes: server-sent events \(\d+ chunks\)$/);
    expect(lineOf(r, "streamed calls")).toBe("streamed calls: native: tool_calls deltas (get_current_time)");
    // Asked as the bot asks when it streams: the same tools and messages, with usage in the stream.
    const [streamed] = streamedRequests();
    expect(streamed?.body.stream_options).toEqual({ include_usage: true });
    expect(streamed?.body.tools?.length).toBe(server!.chats()[0]?.body.tools?.length);
    expect(streamed?.body.messages).toEqual(server!.chats()[0]?.body.messages);
  });

  it("calls streamed as text Hermes reads: streams, text", async () => {
    const r = await check("vllm-text");
    expect(r.streaming).toMatchObject({
      mode: "streams",
      toolCalls: { kind: "text", format: "hermes_json" },
    });
    expect(r.capabilities.streamingToolCalls).toBe("text");
    expect(lineOf(r, "streamed calls")).toBe(
      "streamed calls: as text Hermes reads: hermes_json (get_current_time)",
    );
  });

  it("a server that ignores stream: true (one JSON body): not streaming, calls read from the body", async () => {
    const r = await check("vllm", { stream: "ignores" });
    expect(r.streaming).toMatchObject({ mode: "ignores_stream", toolCalls: { kind: "native" } });
    expect(r.capabilities).toMatchObject({ streaming: "no", streamingToolCalls: "unknown" });
    expect(lineOf(r, "streaming")).toBe(
      "streaming:      no: the server ignores stream: true and sends one JSON answer (Hermes reads it; nothing shows in Slack while the model writes)",
    );
    expect(lineOf(r, "streamed calls")).toBe(
      "streamed calls: native: tool_calls deltas (get_current_time) (in the one JSON answer)",
    );
    expect(streamedRequests()).toHaveLength(1);
  });

  it("a server that refuses stream: true (400): not streaming, says Hermes asks unstreamed", async () => {
    const r = await check("vllm", { stream: "refuses" });
    expect(r.streaming).toEqual({
      mode: "refuses_stream",
      status: 400,
      message: "stream is not supported by this server",
    });
    expect(r.capabilities).toMatchObject({ streaming: "no", streamingToolCalls: "unknown" });
    expect(lineOf(r, "streaming")).toBe(
      "streaming:      no: HTTP 400 to stream: true (stream is not supported by this server); Hermes asks unstreamed instead",
    );
    // Not blocking: the bot falls back to unstreamed requests.
    expect(verdictLine(r.verdict)).toBe("verdict: ready (native tool calls)");
  });
});

describe("images: a 16×16 red PNG sent as an image_url part", () => {
  it("sends a real PNG as a data URL with a question only the picture answers", async () => {
    await check("vllm");
    const [request] = imageRequests();
    const content = request?.body.messages?.[0]?.content as Array<Record<string, unknown>>;
    expect(content[0]).toEqual({ type: "text", text: IMAGE_QUESTION });
    const url = (content[1]?.image_url as { url: string } | undefined)?.url ?? "";
    expect(url).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(url.slice(url.indexOf(",") + 1), "base64");
    expect(png.subarray(1, 4).toString("ascii")).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([16, 16]);
    const idatLength = png.readUInt32BE(33);
    expect(png.subarray(37, 41).toString("ascii")).toBe("IDAT");
    const pixels = inflateSync(png.subarray(41, 41 + idatLength));
    expect(pixels).toHaveLength(16 * (1 + 16 * 3));
    expect([...pixels.subarray(1, 4)]).toEqual([220, 20, 20]);
    // No tools with the picture: only the picture is being asked about.
    expect(request?.body.tools).toBeUndefined();
  });

  it("a model that names the colour: takes images, readable by the bot from the last check", async () => {
    expect(lastModelCheck({ baseURL: "http://127.0.0.1:1/v1", model: MODEL })).toBeUndefined();
    const r = await check("vllm", { images: "takes" });
    expect(r.images).toEqual({ result: "takes_images", answer: "Red." });
    expect(r.capabilities.images).toBe("yes");
    expect(modelTakesImages(r)).toBe(true);
    expect(lineOf(r, "images")).toBe(
      'images:         yes: named the colour of a 16×16 red test picture ("Red.")',
    );
    // What a turn reads at run time: the last check of its configured model, in this process.
    const config = modelConfig(`${server!.baseURL}/`);
    expect(lastModelCheck(config)?.result).toBe(r);
    expect(checkedCapabilities(config)).toEqual({
      streaming: "yes",
      streamingToolCalls: "native",
      images: "yes",
    });
    expect(checkedCapabilities({ baseURL: server!.baseURL, model: "other-model" })).toBeUndefined();
  });

  it("the image probe alone (a worker at start-up): one request, remembered for the turns", async () => {
    server = await startFamilyServer("vllm", { model: MODEL, images: "takes" });
    const config = modelConfig(server.baseURL);
    expect(await checkModelImages(config)).toEqual({ result: "takes_images", answer: "Red." });
    expect(server.requests).toHaveLength(1);
    expect(checkedCapabilities(config)).toEqual({
      streaming: "unknown",
      streamingToolCalls: "unknown",
      images: "yes",
    });
    expect(lastModelCheck(config)).toBeUndefined();
    // A later probe that gets no answer tells nothing new: what was found stands.
    const stopped = server;
    server = undefined;
    await stopped.stop();
    expect(await checkModelImages(config, { timeoutMs: 2_000 })).toMatchObject({ result: "no_answer" });
    expect(checkedCapabilities(config)?.images).toBe("yes");
  });

  it("a server that refuses the picture (400): refuses images, with the server's words", async () => {
    const r = await check("vllm", { images: "refuses" });
    expect(r.images).toEqual({
      result: "refuses_images",
      status: 400,
      message: `${MODEL} is not a multimodal model: image input is not supported`,
    });
    expect(modelTakesImages(r)).toBe(false);
    expect(lineOf(r, "images")).toBe(
      `images:         no: the server refuses pictures (HTTP 400: ${MODEL} is not a multimodal model: image input is not supported)`,
    );
    expect(verdictLine(r.verdict)).toBe("verdict: ready (native tool calls)");
  });

  it("a model that answers without seeing it: ignores images", async () => {
    const r = await check("vllm", { images: "ignores" });
    expect(r.images).toMatchObject({ result: "ignores_images" });
    expect(r.capabilities.images).toBe("no");
    expect(lineOf(r, "images")).toContain('the model answered "I cannot see any picture.');
  });

  it("a model that never answered: neither probe is tried, every capability unknown", async () => {
    const r = await check("vllm-no-parser");
    expect(r.streaming).toBeUndefined();
    expect(r.images).toBeUndefined();
    expect(r.capabilities).toEqual({
      streaming: "unknown",
      streamingToolCalls: "unknown",
      images: "unknown",
    });
    expect(server!.chats()).toHaveLength(1);
  });
});

describe("a probe answer in a syntax no reader knows", () => {
  it("shows the raw sample, the family the model's name suggests and the vLLM flags", async () => {
    const r = await check("unknown-markup");
    expect(r.toolCalls?.best).toEqual({
      kind: "unknown_markup",
      marker: "<xyz_call>",
      sample: UNKNOWN_MARKUP,
    });
    expect(verdictLine(r.verdict)).toBe(
      "verdict: not usable (the model wrote something that looks like a tool call (<xyz_call>) in a syntax no Hermes reader knows; it would reach users as text)",
    );
    expect(r.verdict.hint).toBe("Start vLLM with --enable-auto-tool-choice --tool-call-parser hermes.");
    const lines = modelCheckLines(r);
    expect(lines).toContain(`raw sample:     ${UNKNOWN_MARKUP}`);
    expect(lines).toContain(
      "likely family:  Hermes / Qwen (<tool_call> JSON): from the model's name (the server does not show its chat template)",
    );
    expect(lines).toContain("text format:    unknown (<xyz_call>)");
    expect(r.streaming).toMatchObject({ mode: "streams", toolCalls: { kind: "unknown_markup" } });
    expect(r.capabilities.streamingToolCalls).toBe("no");
  });

  it("names the family the server's chat template writes (llama.cpp /props) and the flag", async () => {
    const markup = "Action: lookup_weather\nAction Input: {city: Paris";
    const r = await check("llamacpp-unknown-markup", {
      model: "my-finetune",
      markup,
      chatTemplate: "{%- if tools %}[AVAILABLE_TOOLS]{{ tools }}[/AVAILABLE_TOOLS]{% endif %}[TOOL_CALLS]",
    });
    expect(r.template).toMatchObject({
      marker: "[TOOL_CALLS]",
      source: "GET /props chat_template",
      parsers: { vllm: "mistral" },
    });
    expect(r.toolCalls?.best).toMatchObject({ kind: "unknown_markup", marker: "Action:" });
    const lines = modelCheckLines(r);
    expect(lines).toContain("raw sample:     Action: lookup_weather\\nAction Input: {city: Paris");
    expect(lines).toContain(
      "likely family:  Mistral: the chat template writes [TOOL_CALLS] (GET /props chat_template)",
    );
    expect(lines).toContain(
      "hint: Start llama-server with --jinja (and --chat-template-file <template> if the GGUF's own template has no tool support).",
    );
  });

  it("a long reply is cut in the sample; a server family it cannot tell gets every flag", async () => {
    const markup = `<|plugin|>${"x".repeat(1000)}`;
    const r = await check("unknown-markup", { model: "my-finetune", markup });
    const best = r.toolCalls?.best;
    expect(best).toMatchObject({ kind: "unknown_markup", marker: "<|plugin|>" });
    expect(best?.kind === "unknown_markup" && best.sample).toHaveLength(300);
    expect(best?.kind === "unknown_markup" && best.sample.endsWith("…")).toBe(true);
    expect(lineOf(r, "likely family")).toBe(
      "likely family:  unknown: the server does not show its chat template and the model's name names no family",
    );
  });
});

describe("what counts as call-like markup", () => {
  it("tags, tokens, Action lines, name objects and offered names at a line start; not prose", () => {
    const cases: Array<[string, string | undefined]> = [
      ["It is 12:00 UTC.", undefined],
      ["I would use the get_current_time tool, but I cannot.", undefined],
      ["Use <b>bold</b> here.", undefined],
      ['<function_invoke name="x">{}</function_invoke>', '<function_invoke name="x">'],
      ["<|call|>get_current_time", "<|call|>"],
      ["[CALL_TOOL] get_current_time", "[CALL_TOOL]"],
      ["Thought: I need the time.\nAction: get_current_time", "Action:"],
      ['{"name": "clock", "args": {}}', '{"name":'],
      ["get_current_time({})", "get_current_time("],
    ];
    for (const [text, marker] of cases)
      expect([text, callLikeMarker(text, ["get_current_time"])]).toEqual([text, marker]);
  });

  it("the sample is one line: breaks and control characters visible", () => {
    expect(rawSample("a\nb\tc\u0001")).toBe("a\\nb\\tc\\u0001");
  });
});

describe("the family a chat template is written for", () => {
  it("reads llama.cpp's /props and Ollama's /api/show templates, most specific marker first", () => {
    const qwenCoder = "{% if tools %}<tools>{{ tools }}</tools>{% endif %}<tool_call>\n<function={{ name }}>";
    expect(templateFamily({ props: { chat_template: qwenCoder } })).toMatchObject({
      marker: "<function=",
      source: "GET /props chat_template",
      parsers: { vllm: "qwen3_coder", sglang: "qwen3_coder" },
    });
    expect(
      templateFamily({ ollamaShow: { template: "{{- if .ToolCalls }}<tool_call>{{ end }}" } }),
    ).toMatchObject({
      marker: "<tool_call>",
      source: "POST /api/show template",
      parsers: { vllm: "hermes" },
    });
    expect(templateFamily({ props: { chat_template: "{{ messages }}" } })).toBeUndefined();
    expect(templateFamily({})).toBeUndefined();
  });

  it("the template decides the parser when no format was seen; the model's name refines the same syntax", () => {
    const kimi = templateFamily({ props: { chat_template: "<|tool_calls_section_begin|>" } })!.parsers;
    expect(parserFor("my-finetune", undefined, kimi)?.vllm).toBe("kimi_k2");
    const deepseek = templateFamily({ props: { chat_template: "<｜tool▁calls▁begin｜>" } })!.parsers;
    expect(parserFor("deepseek-ai/DeepSeek-V3.1", undefined, deepseek)?.vllm).toBe("deepseek_v31");
    expect(parserFor("Qwen/Qwen3-8B", "mistral", kimi)?.vllm).toBe("mistral");
  });
});
