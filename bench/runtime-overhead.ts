/**
 * Runtime overhead: the same scripted turn (one tool round trip, served over local HTTP by an
 * OpenAI-compatible server) through (a) a bare loop on the openai SDK, (b) Hermes' runTurn with its
 * JSON trace written and redacted as in production, (b') the same with the trace off, and
 * (c) @openai/agents with a chat-completions model (its tracing off). Contenders run interleaved in
 * rounds, so drift (CPU frequency, a neighbour's load) hits them alike; each round ends with a timed
 * collection of the garbage it made, charged to its contender.
 */
import { readFileSync } from "node:fs";
import { Agent, OpenAIProvider, run, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { z } from "zod";
import { DEFAULT_SYSTEM_PROMPT } from "../src/agent/context/system-prompt.ts";
import { createOpenAIModel } from "../src/agent/model/openai-model.ts";
import { runTurn } from "../src/agent/run/loop.ts";
import { bufferedDestination, createLogger, silentLogger } from "../src/core/logger.ts";
import { redactForLog } from "../src/policy/redact.ts";
import { defineTool } from "../src/tools/define-tool.ts";
import { ToolRegistry } from "../src/tools/registry.ts";
import { createMemoryResultStore } from "../src/tools/result-store.ts";
import { answer, ScriptedModelServer, toolCalls } from "../test/helpers/scripted-model.ts";
import { collectGarbage } from "./lib/collect-garbage.ts";
import { type Summary, summarize } from "./lib/stats.ts";

const TASK = "What is the weather in Berlin? Answer in one sentence.";
const ROUND = 25;

export const CONTENDERS = ["bare", "hermes", "hermes-no-trace", "openai-agents"] as const;
export type Contender = (typeof CONTENDERS)[number];

export interface RuntimeOverhead {
  turns: number;
  /** Each turn's own time (what `mean` of a contender's turns is before its garbage is collected). */
  perTurnMs: Record<Contender, Summary>;
  /** Collecting what the contender's rounds left, per turn (added to its mean in the ratios). */
  gcPerTurnMs: Record<Contender, number>;
  /** Mean ms per turn of Hermes (trace on, as in production) over the bare loop and over @openai/agents. */
  vsBare: number;
  vsOpenaiAgents: number;
  /** The same with Hermes' trace off (like-for-like with @openai/agents, whose tracing is off). */
  noTraceVsBare: number;
  noTraceVsOpenaiAgents: number;
  openaiAgentsVersion: string;
}

/** The scripted model every contender talks to: a `get_weather` call, then a one-sentence answer. */
export async function startWeatherModel(): Promise<ScriptedModelServer> {
  const server = await new ScriptedModelServer().start();
  server.record = false;
  server.fallback = (req) =>
    req.body.messages.some((m) => m.role === "tool")
      ? answer("It is 7 °C and cloudy in Berlin.")
      : toolCalls([{ name: "get_weather", args: { city: "Berlin" } }]);
  return server;
}

export async function measureRuntimeOverhead(o: { turns: number; warmup: number }): Promise<RuntimeOverhead> {
  const server = await startWeatherModel();
  try {
    const contenders = await buildContenders(server.baseURL);
    const samples = Object.fromEntries(CONTENDERS.map((n) => [n, [] as number[]])) as Record<
      Contender,
      number[]
    >;
    for (const name of CONTENDERS) {
      const out = await contenders[name]();
      if (!out.includes("Berlin")) throw new Error(`${name} gave a wrong answer: ${out}`);
      for (let i = 0; i < o.warmup; i++) await contenders[name]();
    }
    const collect = youngGenerationCollector();
    collect(); // what the warm-up left is nobody's
    const gcMs = Object.fromEntries(CONTENDERS.map((n) => [n, 0])) as Record<Contender, number>;
    for (let done = 0; done < o.turns; done += ROUND) {
      for (const name of CONTENDERS) {
        for (let i = 0; i < ROUND; i++) {
          const t = performance.now();
          await contenders[name]();
          samples[name].push(performance.now() - t);
        }
        // The round's garbage is collected now, timed, and charged to the contender that made it
        // (see youngGenerationCollector).
        const t = performance.now();
        collect();
        gcMs[name] += performance.now() - t;
      }
    }
    const perTurnMs = Object.fromEntries(CONTENDERS.map((n) => [n, summarize(samples[n])])) as Record<
      Contender,
      Summary
    >;
    const gcPerTurnMs = Object.fromEntries(CONTENDERS.map((n) => [n, gcMs[n] / samples[n].length])) as Record<
      Contender,
      number
    >;
    // Per turn: the turns' own time, and the collection of what they left.
    const mean = (n: Contender) => perTurnMs[n].mean + gcPerTurnMs[n];
    return {
      turns: samples.bare.length,
      perTurnMs,
      gcPerTurnMs,
      vsBare: mean("hermes") / mean("bare"),
      vsOpenaiAgents: mean("hermes") / mean("openai-agents"),
      noTraceVsBare: mean("hermes-no-trace") / mean("bare"),
      noTraceVsOpenaiAgents: mean("hermes-no-trace") / mean("openai-agents"),
      openaiAgentsVersion: packageVersion("@openai/agents"),
    };
  } finally {
    await server.stop();
  }
}

/**
 * A timed young-generation collection, run after each contender's round so that every contender
 * pays for collecting its own garbage. Without it, a scavenge (5–20 ms here: each `fetch` keeps its
 * request and response reachable through undici's weak references until a full collection, so
 * megabytes survive every scavenge) landed on whichever contender was running when the young
 * generation filled: one contender's garbage charged to another, and the ratio moved by ±0.05–0.1
 * from run to run even at 1,000 turns each.
 */
function youngGenerationCollector(): () => void {
  return () => collectGarbage("minor");
}

/** A dependency's installed version (read from its package.json: some do not export it). */
function packageVersion(name: string): string {
  const file = new URL(`../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

export async function buildContenders(baseURL: string): Promise<Record<Contender, () => Promise<string>>> {
  const weather = (city: string) => ({ city, celsius: 7, sky: "cloudy" });

  // (a) bare loop on the SDK
  const client = new OpenAI({ baseURL, apiKey: "bench", maxRetries: 0 });
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
  const logger = createLogger({
    level: "info",
    redact: redactForLog,
    destination: bufferedDestination("/dev/null"),
  });
  const registry = new ToolRegistry({ results: createMemoryResultStore(), logger }).register(
    defineTool({
      name: "get_weather",
      description: "Current weather for a city",
      input: z.object({ city: z.string() }),
      execute: ({ city }) => weather(city),
    }),
  );
  const model = createOpenAIModel({
    baseURL,
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

  // (c) @openai/agents with a chat-completions model, on the OpenAI client it brings (its own `openai`
  // release: 0.20 needs openai 7, Hermes is on 6), as its users run it
  setTracingDisabled(true);
  const provider = new OpenAIProvider({ baseURL, apiKey: "bench", useResponses: false });
  const agent = new Agent({
    name: "bench",
    instructions: DEFAULT_SYSTEM_PROMPT, // the same prompt for all: the same workload
    model: await provider.getModel("scripted"),
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

  return {
    bare,
    hermes: hermesWith(logger),
    "hermes-no-trace": hermesWith(silentLogger()),
    "openai-agents": openaiAgents,
  };
}
