import { afterEach, describe, expect, it } from "vitest";
import { offlineToolSpecs } from "../../src/boot/offline-tool-specs.ts";
import { loadConfig } from "../../src/config.ts";
import { PROCESS_TEST_TIMEOUT_MS, runProcess } from "../helpers/child-process.ts";
import {
  closedPortBaseURL,
  type FamilyServer,
  startFamilyServer,
  UNKNOWN_MARKUP,
} from "../helpers/model-server-families.ts";

const MODEL = "Qwen/Qwen2.5-7B-Instruct";
const KEY = "probe-key-5d1c8e0a77f4";
let server: FamilyServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** `node src/cli/model-check.ts …` with only the model variables set, as its own process group. */
function modelCheck(env: Record<string, string>, args: string[] = []) {
  return runProcess(process.execPath, ["src/cli/model-check.ts", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
}

describe("npm run model:check", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("prints each finding and the verdict, exit 0, probing with the bot's built-in tool specs", async () => {
    server = await startFamilyServer("vllm", { model: MODEL });
    const r = await modelCheck({ OPENAI_BASE_URL: server.baseURL, HERMES_MODEL: MODEL, OPENAI_API_KEY: KEY });
    expect(r.stderr).toBe("");
    const specs = (await offlineToolSpecs(loadConfig({}), {})).specs;
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toEqual([
      `checking ${MODEL} at ${server.baseURL} …`,
      `endpoint:       ${server.baseURL} · model ${MODEL} · ${specs.length} tool specs`,
      `models:         1 listed (${MODEL}); ${MODEL} is listed`,
      "server:         vLLM (owned_by: vllm)",
      "context window: 32768 tokens (GET /v1/models max_model_len)",
      "tool calling:   yes: native tool_calls in 3 of 3 tries (get_current_time)",
      "text format:    none needed (native)",
      "tool results:   accepted (a completion came back for the tool message)",
      expect.stringMatching(/^streaming: {6}yes: server-sent events \(\d+ chunks\)$/),
      "streamed calls: native: tool_calls deltas (get_current_time)",
      'images:         no: asked the colour of a red test picture, the model answered "I cannot see any picture. Could you describe it?": the picture does not reach it',
      expect.stringMatching(/^latency: {8}p50 \d+ ms over 3 probes \(\d+, \d+, \d+ ms\)$/),
      "verdict: ready (native tool calls)",
    ]);
    expect(r.code).toBe(0);
    const offered = server.chats()[0]?.body.tools?.map((t) => t.function.name);
    expect(offered?.sort()).toEqual(specs.map((s) => s.name).sort());
    expect(server.chats()[0]?.body.tools?.length).toBeGreaterThanOrEqual(12);
  });

  it("--json: the same result as one JSON document", async () => {
    server = await startFamilyServer("vllm-text", { model: MODEL, stream: "ignores", images: "takes" });
    const r = await modelCheck({ OPENAI_BASE_URL: server.baseURL, HERMES_MODEL: MODEL }, ["--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.verdict).toEqual({
      status: "works",
      reason: "calls recovered from text: hermes_json",
      hint: expect.stringContaining("--enable-auto-tool-choice --tool-call-parser hermes"),
    });
    expect(report.toolCalls.best).toEqual({
      kind: "text",
      format: "hermes_json",
      calls: ["get_current_time"],
    });
    expect(report.contextWindow.tokens).toBe(32768);
    // What the bot may rely on: a stream it reads as one JSON answer, pictures seen.
    expect(report.capabilities).toEqual({ streaming: "no", streamingToolCalls: "unknown", images: "yes" });
    expect(report.streaming).toMatchObject({ mode: "ignores_stream", toolCalls: { kind: "text" } });
    expect(report.images).toEqual({ result: "takes_images", answer: "Red." });
  });

  it("a reply in a syntax no reader knows: the raw sample, the likely family and the flag, exit 1", async () => {
    server = await startFamilyServer("unknown-markup", { model: MODEL, images: "refuses" });
    const r = await modelCheck({ OPENAI_BASE_URL: server.baseURL, HERMES_MODEL: MODEL });
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toContain(
      "tool calling:   no: the model wrote markup that looks like a call (<xyz_call>) in a syntax Hermes does not read",
    );
    expect(lines).toContain(`raw sample:     ${UNKNOWN_MARKUP}`);
    expect(lines).toContain(
      "likely family:  Hermes / Qwen (<tool_call> JSON): from the model's name (the server does not show its chat template)",
    );
    expect(lines).toContain(
      `images:         no: the server refuses pictures (HTTP 400: ${MODEL} is not a multimodal model: image input is not supported)`,
    );
    expect(lines.slice(-2)).toEqual([
      "verdict: not usable (the model wrote something that looks like a tool call (<xyz_call>) in a syntax no Hermes reader knows; it would reach users as text)",
      "hint: Start vLLM with --enable-auto-tool-choice --tool-call-parser hermes.",
    ]);
  });

  it("a server that is down: the verdict names the URL and the error, exit 1", async () => {
    const baseURL = await closedPortBaseURL();
    const r = await modelCheck({ OPENAI_BASE_URL: baseURL, HERMES_MODEL: MODEL });
    expect(r.stdout).toContain(
      `verdict: not usable (cannot reach ${baseURL}/models: connect ECONNREFUSED 127.0.0.1:${new URL(baseURL).port}; check OPENAI_BASE_URL)`,
    );
    expect(r.stdout).toContain("hint: Is the server running, and is OPENAI_BASE_URL its API address");
    expect(r.code).toBe(1);
  });

  it("no model configured: says what to set, exit 1", async () => {
    const r = await modelCheck({});
    expect(r.stderr).toContain("No model is configured");
    expect(r.stderr).toContain("OPENAI_BASE_URL=");
    expect(r.code).toBe(1);
  });
});
