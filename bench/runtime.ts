/**
 * Runtime overhead: the same scripted turn (one tool round trip, served over local HTTP by an
 * OpenAI-compatible server) through (a) a bare loop on the openai SDK, (b) Hermes' runTurn,
 * (c) @openai/agents with a chat-completions model. Prints ms per turn and the ratios, then what
 * recovering text tool calls costs per message for each model family (bench/text-formats.ts).
 *   npm run bench:runtime [-- --turns 300]
 */
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { z } from "zod";
import { runTurn } from "../src/agent/loop.ts";
import { createOpenAIModel } from "../src/agent/openai-model.ts";
import { DEFAULT_SYSTEM_PROMPT } from "../src/agent/system-prompt.ts";
import { bufferedDestination, createLogger, silentLogger } from "../src/logger.ts";
import { redact } from "../src/policy/redact.ts";
import { defineTool } from "../src/tools/define-tool.ts";
import { ToolRegistry } from "../src/tools/registry.ts";
import { createMemoryResultStore } from "../src/tools/result-store.ts";
import { answer, ScriptedModelServer, toolCalls } from "../test/helpers/scripted-model.ts";
import { printTextFormats } from "./text-formats.ts";

const turnsArg = process.argv.indexOf("--turns");
const TURNS = turnsArg > 0 ? Number(process.argv[turnsArg + 1]) : 300;
const WARMUP = 50;
const TASK = "What is the weather in Berlin? Answer in one sentence.";

const server = await new ScriptedModelServer().start();
server.record = false;
server.fallback = (req) =>
  req.body.messages.some((m) => m.role === "tool")
    ? answer("It is 7 °C and cloudy in Berlin.")
    : toolCalls([{ name: "get_weather", args: { city: "Berlin" } }]);
const weather = (city: string) => ({ city, celsius: 7, sky: "cloudy" });

// (a) bare loop on the SDK
const client = new OpenAI({ baseURL: server.baseURL, apiKey: "bench", maxRetries: 0 });
const bareTools: ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];
async function bare(): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: DEFAULT_SYSTEM_PROMPT },
    { role: "user", content: TASK },
  ];
  for (;;) {
    const r = await client.chat.completions.create({ model: "scripted", messages, tools: bareTools });
    const msg = r.choices[0]!.message;
    if (!msg.tool_calls?.length) return msg.content ?? "";
    messages.push(msg);
    for (const c of msg.tool_calls) {
      if (c.type !== "function") continue;
      const args = JSON.parse(c.function.arguments) as { city: string };
      messages.push({ role: "tool", tool_call_id: c.id, content: JSON.stringify(weather(args.city)) });
    }
  }
}

// (b) Hermes, with its trace written as JSON lines (to /dev/null) and redaction on, as in production
const logger = createLogger({ level: "info", redact, destination: bufferedDestination("/dev/null") });
const registry = new ToolRegistry({ results: createMemoryResultStore(), logger }).register(
  defineTool({
    name: "get_weather",
    description: "Current weather for a city",
    input: z.object({ city: z.string() }),
    execute: ({ city }) => weather(city),
  }),
);
const model = createOpenAIModel({
  baseURL: server.baseURL,
  apiKey: "bench",
  model: "scripted",
  temperature: 0.2,
  maxOutputTokens: 512,
  timeoutMs: 10_000,
  maxRetries: 0,
});
const hermesWith = (log: typeof logger) => async (): Promise<string> => {
  const r = await runTurn(
    { run: { sessionKey: "bench:c:1", userId: "U0BENCH" }, history: [], userMessage: TASK },
    { model, registry, logger: log },
  );
  if (r.status !== "completed") throw new Error(`hermes: ${r.status} ${r.answer}`);
  return r.answer;
};
const hermes = hermesWith(logger);
// The same runtime with its trace off: like-for-like with (c), whose tracing is disabled below.
const hermesNoTrace = hermesWith(silentLogger());

// (c) @openai/agents with a chat-completions model
setTracingDisabled(true);
const agent = new Agent({
  name: "bench",
  instructions: DEFAULT_SYSTEM_PROMPT, // the same prompt for all three: the same workload
  model: new OpenAIChatCompletionsModel(client, "scripted"),
  tools: [
    tool({
      name: "get_weather",
      description: "Current weather for a city",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => JSON.stringify(weather(city)),
    }),
  ],
});
async function openaiAgents(): Promise<string> {
  const r = await run(agent, TASK);
  return String(r.finalOutput);
}

const contenders = { bare, hermes, "hermes-no-trace": hermesNoTrace, "openai-agents": openaiAgents } as const;
type Name = keyof typeof contenders;
const samples: Record<Name, number[]> = { bare: [], hermes: [], "hermes-no-trace": [], "openai-agents": [] };

for (const [name, fn] of Object.entries(contenders)) {
  const out = await fn();
  if (!out.includes("Berlin")) throw new Error(`${name} gave a wrong answer: ${out}`);
  for (let i = 0; i < WARMUP; i++) await fn();
}
// Interleave in rounds so drift (GC, CPU frequency) hits all three alike.
const ROUND = 25;
for (let done = 0; done < TURNS; done += ROUND) {
  for (const name of Object.keys(contenders) as Name[]) {
    for (let i = 0; i < ROUND; i++) {
      const t = performance.now();
      await contenders[name]();
      samples[name].push(performance.now() - t);
    }
  }
}
await server.stop();

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return { mean, p50: s[Math.floor(s.length * 0.5)]!, p99: s[Math.floor(s.length * 0.99)]! };
};
console.log(
  `runtime benchmark: ${TURNS} turns each (one tool round trip = 2 model requests over local HTTP), node ${process.version}`,
);
for (const name of Object.keys(samples) as Name[]) {
  const s = stats(samples[name]);
  console.log(
    `${name.padEnd(14)} mean ${s.mean.toFixed(2)} ms/turn   p50 ${s.p50.toFixed(2)}   p99 ${s.p99.toFixed(2)}`,
  );
}
const mean = (n: Name) => stats(samples[n]).mean;
console.log(
  `with the trace off: ratio hermes/bare=${(mean("hermes-no-trace") / mean("bare")).toFixed(2)} hermes/openai-agents=${(mean("hermes-no-trace") / mean("openai-agents")).toFixed(2)}`,
);
console.log(
  `ratio hermes/bare=${(mean("hermes") / mean("bare")).toFixed(2)} hermes/openai-agents=${(mean("hermes") / mean("openai-agents")).toFixed(2)}`,
);

printTextFormats();
