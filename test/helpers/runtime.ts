import { z } from "zod";
import { emptyUsage } from "../../src/agent/context/messages.ts";
import type { ChatModel, ModelResponse } from "../../src/agent/model/chat-model.ts";
import { createOpenAIModel } from "../../src/agent/model/openai-model.ts";
import type { TraceEvent } from "../../src/agent/run/trace.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { defineTool, type Tool } from "../../src/tools/define-tool.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { createMemoryResultStore } from "../../src/tools/result-store.ts";
import type { ScriptedModelServer } from "./scripted-model.ts";

export interface Execution {
  name: string;
  args: Record<string, unknown>;
}

/** The three tools the model fixtures assume; every execution is recorded. */
export function fixtureTools(executions: Execution[]): Tool[] {
  return [
    defineTool({
      name: "create_ticket",
      description: "Open a ticket.",
      input: z.object({
        title: z.string().min(1),
        description: z.string().optional(),
        priority: z.enum(["low", "medium", "high", "urgent"]).optional(),
      }),
      execute: (args) => {
        executions.push({ name: "create_ticket", args });
        return { id: 42, ...args };
      },
    }),
    defineTool({
      name: "search_tickets",
      description: "Search tickets.",
      level: "viewer",
      input: z.object({
        query: z.string().optional(),
        status: z.enum(["open", "in_progress", "closed"]).optional(),
        limit: z.number().int().min(1).max(50).optional(),
      }),
      execute: (args) => {
        executions.push({ name: "search_tickets", args });
        return [];
      },
    }),
    defineTool({
      name: "get_current_time",
      description: "The current time.",
      level: "viewer",
      input: z.object({}),
      execute: (args) => {
        executions.push({ name: "get_current_time", args });
        return "2026-11-29T10:00:00Z";
      },
    }),
  ];
}

/** A real OpenAI SDK model pointed at the scripted server (fast retries for tests). */
export function testModel(
  server: ScriptedModelServer,
  overrides: Partial<Parameters<typeof createOpenAIModel>[0]> = {},
) {
  return createOpenAIModel({
    baseURL: server.baseURL,
    apiKey: "test-key",
    model: "scripted",
    temperature: 0.2,
    maxOutputTokens: 512,
    timeoutMs: 5000,
    maxRetries: 3,
    ...overrides,
  });
}

export function testRegistry(tools: Tool[]) {
  const results = createMemoryResultStore();
  return { registry: new ToolRegistry({ results, logger: silentLogger() }).register(...tools), results };
}

export const testRun = {
  sessionKey: "T0001:C0OPS:1764420000.000100",
  userId: "U0USER1",
  teamId: "T0001",
  channelId: "C0OPS",
};

export function traceCollector() {
  const events: TraceEvent[] = [];
  return {
    events,
    onTraceEvent: (e: TraceEvent) => events.push(e),
    of: (type: string) => events.filter((e) => e.event === type),
  };
}

/**
 * An in-process model answering from a script (no HTTP): records what it was sent, counts its calls,
 * and `untilAsked(n)` resolves once it has been asked `n` times.
 */
export function inProcessModel(script: Array<Partial<ModelResponse>>) {
  const sent: Array<Parameters<ChatModel["complete"]>[0]["messages"]> = [];
  const waiting: Array<() => void> = [];
  const model: ChatModel = {
    name: "scripted",
    maxOutputTokens: 256,
    async complete(request) {
      sent.push(structuredClone(request.messages));
      for (const w of waiting.splice(0)) w();
      const next = script.shift();
      if (!next) throw new Error("script exhausted");
      return {
        content: "",
        toolCalls: [],
        finishReason: next.toolCalls?.length ? "tool_calls" : "stop",
        usage: emptyUsage(),
        latencyMs: 1,
        model: "scripted",
        repairs: [],
        ...next,
      };
    },
  };
  return {
    model,
    sent,
    asked: () => sent.length,
    async untilAsked(n: number) {
      while (sent.length < n) await new Promise<void>((r) => waiting.push(r));
    },
  };
}
