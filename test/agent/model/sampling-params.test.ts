import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isOpenAIReasoningModel } from "../../../src/agent/model/sampling-params.ts";
import { runTurn } from "../../../src/agent/run/loop.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { testModel, testRegistry, testRun } from "../../helpers/runtime.ts";
import { answer, ScriptedModelServer } from "../../helpers/scripted-model.ts";

describe("output cap and temperature as each model family takes them", () => {
  const server = new ScriptedModelServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  async function requestFor(model: string) {
    server.enqueue(answer("ok"));
    const { registry } = testRegistry([]);
    await runTurn(
      { run: testRun, history: [], userMessage: "hi" },
      {
        model: testModel(server, { model, temperature: 0.2, maxOutputTokens: 777 }),
        registry,
        logger: silentLogger(),
      },
    );
    return server.requests[0]!.body as Record<string, unknown>;
  }

  it.each(["o3", "o4-mini", "gpt-5", "gpt-5.1-mini", "openai/o1-preview"])(
    "%s (an OpenAI reasoning model) gets max_completion_tokens and no temperature, over HTTP",
    async (model) => {
      const body = await requestFor(model);
      expect(body.max_completion_tokens).toBe(777);
      expect(body).not.toHaveProperty("max_tokens");
      expect(body).not.toHaveProperty("temperature");
    },
  );

  it.each(["gpt-4o-mini", "gpt-5-chat-latest", "qwen3-32b", "gpt-oss-20b", "llama3.1:8b", "olmo-2"])(
    "%s keeps max_tokens and temperature",
    async (model) => {
      const body = await requestFor(model);
      expect(body.max_tokens).toBe(777);
      expect(body.temperature).toBe(0.2);
      expect(body).not.toHaveProperty("max_completion_tokens");
    },
  );

  it("only the model name decides, not a look-alike", () => {
    expect(isOpenAIReasoningModel("o1")).toBe(true);
    expect(isOpenAIReasoningModel("ollama/o3")).toBe(true);
    expect(isOpenAIReasoningModel("opus")).toBe(false);
    expect(isOpenAIReasoningModel("gpt-4.1")).toBe(false);
  });
});
