import { randomUUID } from "node:crypto";
import { emptyUsage } from "../context/messages.ts";
import type { ChatModel, ModelResponse, ToolSpec } from "../model/chat-model.ts";
import { parseKeyValues } from "./command-args.ts";
import { commandReply, withTry } from "./command-reply.ts";

/**
 * Command mode: a `ChatModel` that is not a model. `run <tool> key=value …` or `run <tool> {json}`
 * becomes exactly that tool call, and its result becomes the answer; `help` lists the tools the
 * user may call. Because it plugs in where the model goes, explicit commands take the very same
 * path as model calls: validation, policy, approvals, audit, pause and resume.
 */
export function createCommandModel(options: { fallback?: ChatModel; noModelHelp?: string } = {}): ChatModel {
  return {
    name: options.fallback ? `${options.fallback.name}+commands` : "command-mode",
    maxOutputTokens: options.fallback?.maxOutputTokens ?? 1024,
    async complete(request) {
      const lastUser = request.messages.findLastIndex((m) => m.role === "user");
      const after = request.messages.slice(lastUser + 1);
      const userText = lastUser >= 0 ? request.messages[lastUser]!.content : "";
      const command = parseCommand(stripQuotedContext(userText), request.tools);
      if (!command) {
        if (options.fallback) return options.fallback.complete(request);
        return reply(options.noModelHelp ?? NO_MODEL_HELP);
      }
      if (command.kind === "help") return reply(toolHelp(request.tools));
      if (command.kind === "invalid") {
        const spec = request.tools.find((t) => t.name === command.tool);
        return reply(withTry(`I did not run \`${command.tool}\`: ${command.problem}`, spec));
      }
      const results = after.filter((m) => m.role === "tool");
      if (after.some((m) => m.role === "assistant" && m.toolCalls?.length)) {
        // The call was made: its result (or rejection) is the answer.
        const r = results.at(-1);
        if (!r) return reply(`\`${command.tool}\` returned nothing.`);
        // Written for the person who typed the command, not for a model.
        return reply(
          commandReply(
            r.name,
            r.content,
            request.tools.find((t) => t.name === r.name),
          ),
        );
      }
      return {
        content: "",
        toolCalls: [{ id: `call_${randomUUID().slice(0, 8)}`, name: command.tool, arguments: command.args }],
        finishReason: "tool_calls",
        usage: emptyUsage(),
        latencyMs: 0,
        model: "command-mode",
        repairs: [],
      };
    },
  };
}

export const NO_MODEL_HELP = [
  "No model is configured, so I only run explicit commands for now.",
  '• `run <tool> key=value …` or `run <tool> {json}` calls a tool, e.g. `run create_ticket title="Printer on 3F jammed" priority=high`',
  "• `help` lists the tools you may use and their arguments.",
  "To chat normally, set `OPENAI_BASE_URL` and `HERMES_MODEL` (e.g. Ollama at http://localhost:11434/v1 with HERMES_MODEL=qwen2.5:7b-instruct) or `OPENAI_API_KEY`, and restart.",
].join("\n");

type Command =
  | { kind: "help" }
  | { kind: "run"; tool: string; args: string }
  /** `run <tool> …` whose arguments cannot be read as written: `problem` says what to fix. */
  | { kind: "invalid"; tool: string; problem: string };

/**
 * `help`, or `run <tool> …` at the start of the message (after a leading bot mention). `tools` (the
 * tools offered) lets `key=value` arguments be checked against the tool's own argument names.
 */
export function parseCommand(text: string, tools: readonly ToolSpec[] = []): Command | undefined {
  const t = text.replace(/^\s*(<@[A-Z0-9]+>\s*)+/, "").trim();
  if (/^help\s*$/i.test(t)) return { kind: "help" };
  const m = /^run\s+([a-z][a-z0-9_]*)\s*([\s\S]*)$/i.exec(t);
  if (!m) return undefined;
  const tool = m[1]!;
  const rest = (m[2] ?? "").trim();
  if (rest.startsWith("{")) return { kind: "run", tool, args: rest };
  const spec = tools.find((s) => s.name === tool);
  const names = spec && argumentNames(spec);
  const parsed = parseKeyValues(rest, names && { name: tool, args: names });
  if (!parsed.ok) return { kind: "invalid", tool, problem: parsed.problem };
  return { kind: "run", tool, args: JSON.stringify(parsed.values) };
}

/** The argument names a tool takes; undefined when its schema lists none or takes any (then none is refused). */
function argumentNames(spec: ToolSpec): string[] | undefined {
  const { properties, additionalProperties } = spec.parameters as {
    properties?: Record<string, unknown>;
    additionalProperties?: unknown;
  };
  if (!properties || (additionalProperties !== undefined && additionalProperties !== false)) return undefined;
  return Object.keys(properties);
}

/** Quoted thread context (added by the Slack layer) is not part of the command. */
function stripQuotedContext(text: string): string {
  const i = text.lastIndexOf("</untrusted>");
  return i >= 0 ? text.slice(i + "</untrusted>".length) : text;
}

function toolHelp(tools: ToolSpec[]): string {
  if (tools.length === 0) return "You may not use any tools.";
  const lines = tools.map((t) => {
    const props = (t.parameters.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown[] }>;
    const required = new Set((t.parameters.required as string[] | undefined) ?? []);
    const args = Object.entries(props)
      .map(([k, p]) => {
        const type = p.enum ? p.enum.join("|") : String(p.type ?? "value");
        return required.has(k) ? `${k}=<${type}>` : `[${k}=<${type}>]`;
      })
      .join(" ");
    return `• \`run ${t.name}${args ? ` ${args}` : ""}\` — ${t.description.split("\n")[0]}`;
  });
  return ["Tools you may use:", ...lines].join("\n");
}

function reply(content: string): ModelResponse {
  return {
    content,
    toolCalls: [],
    finishReason: "stop",
    usage: emptyUsage(),
    latencyMs: 0,
    model: "command-mode",
    repairs: [],
  };
}
