import { createHash } from "node:crypto";
import pLimit, { type LimitFunction } from "p-limit";
import { z } from "zod";
import { errorMessage, HermesError } from "../core/errors.ts";
import { tooLongError } from "../core/json-limits.ts";
import { type LenientParse, parseLenientJson } from "../core/lenient-json.ts";
import type { Logger } from "../core/logger.ts";
import { capResult, serializeResult } from "./cap-result.ts";
import { type CoerceNotes, coerceArgs } from "./coerce-args.ts";
import type { Tool, ToolContext } from "./define-tool.ts";
import type { ResultStore } from "./result-store.ts";
import type { ToolCall } from "./tool-call.ts";
import { resolveToolName } from "./tool-names.ts";
import type { ToolSpec } from "./tool-spec.ts";

export type PreparedCall =
  | {
      ok: true;
      call: ToolCall;
      tool: Tool;
      args: Record<string, unknown>;
      repairs: string[];
      notes: CoerceNotes;
    }
  | {
      ok: false;
      call: ToolCall;
      kind: "unknown_tool" | "invalid_args";
      error: string;
      repairs: string[];
      /** The lenient parse of the arguments, when there was one (for the audit row of a failed call). */
      parsed?: LenientParse;
    }
  | {
      ok: false;
      call: ToolCall;
      /** A registered tool the requester may not call: a denial for policy to explain and audit, not an unknown name. */
      kind: "not_permitted";
      tool: Tool;
      error: string;
      parsed: LenientParse;
      repairs: string[];
    };

export interface ExecutionResult {
  ok: boolean;
  /** What the model reads: capped, or the error sentence. */
  content: string;
  resultRef?: string;
  error?: string;
  timedOut?: boolean;
  attempts: number;
  durationMs: number;
  fullLength: number;
}

interface Entry {
  tool: Tool;
  schema: Record<string, unknown>;
  /** Hash of what a person approves against: description, input schema and the policy fields. */
  definition: string;
  limit: LimitFunction;
  /** Set for tools registered through `replaceSource`: a source whose tool list changes at runtime. */
  source?: string;
}

/**
 * The tools the runtime knows. It turns a model's call into validated arguments (repair → coerce →
 * validate) and executes with a timeout, retries for idempotent tools, a per-tool concurrency limit,
 * and a capped result whose full text goes to the ResultStore.
 */
export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly specCache = new Map<string, ToolSpec[]>();

  private readonly deps: { results: ResultStore; logger: Logger };

  constructor(deps: { results: ResultStore; logger: Logger }) {
    this.deps = deps;
  }

  register(...tools: Tool[]): this {
    for (const tool of tools) {
      if (this.entries.has(tool.name)) throw duplicateName(tool.name);
      this.specCache.clear();
      this.entries.set(tool.name, entryOf(tool));
    }
    return this;
  }

  /**
   * Makes `tools` the whole current list of `source` (MCP servers: their lists change while Hermes
   * runs): the source's other tools go, the new ones are offered from the next turn on. All or
   * nothing: a name another source or a registered tool already has throws and changes nothing.
   */
  replaceSource(source: string, tools: readonly Tool[]): this {
    const next = new Map<string, Entry>();
    for (const tool of tools) {
      const taken = this.entries.get(tool.name);
      if (next.has(tool.name) || (taken && taken.source !== source)) throw duplicateName(tool.name);
      next.set(tool.name, { ...entryOf(tool), source });
    }
    for (const [name, entry] of this.entries) if (entry.source === source) this.entries.delete(name);
    for (const [name, entry] of next) this.entries.set(name, entry);
    this.specCache.clear();
    return this;
  }

  get(name: string): Tool | undefined {
    return this.entries.get(name)?.tool;
  }

  /** The hash of a registered tool's definition (what an approval of a call to it is bound to). */
  definitionOf(name: string): string | undefined {
    return this.entries.get(name)?.definition;
  }

  list(): Tool[] {
    return [...this.entries.values()].map((e) => e.tool);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** What the model is told about the named tools (all when `names` is omitted). */
  specs(names?: Iterable<string>): ToolSpec[] {
    // Cached per name set: the same array object lets the token counter cache its size too.
    const key = names ? [...names].sort().join(",") : "*";
    const cached = this.specCache.get(key);
    if (cached) return cached;
    const wanted = names ? new Set(names) : undefined;
    const out: ToolSpec[] = [];
    for (const { tool, schema } of this.entries.values()) {
      if (wanted && !wanted.has(tool.name)) continue;
      const examples = tool.examples.length
        ? `\nExamples: ${tool.examples.map((e) => JSON.stringify(e)).join(" ; ")}`
        : "";
      out.push({ name: tool.name, description: tool.description + examples, parameters: schema });
    }
    this.specCache.set(key, out);
    return out;
  }

  /**
   * Parse, repair, coerce and validate one call. `allowed` is what the requester may call: a registered
   * tool outside it is `not_permitted` (checked before its arguments, so a forbidden tool gets no help
   * with them); only a name no tool has is `unknown_tool`, answered with the names the requester may use.
   */
  prepare(written: ToolCall, allowed?: ReadonlySet<string>): PreparedCall {
    const named = this.resolveName(written.name, allowed);
    if (named.kind === "unknown") {
      const valid = (allowed ? [...allowed] : this.names()).sort().join(", ");
      const also = named.candidates.length
        ? ` "${written.name}" could mean ${named.candidates.join(" or ")}; use the exact name.`
        : "";
      return {
        ok: false,
        call: written,
        kind: "unknown_tool",
        repairs: [],
        error: `There is no tool named "${written.name}".${also} The tools you can call are: ${valid || "(none)"}.`,
      };
    }
    const entry = this.entries.get(named.name)!;
    const call = named.name === written.name ? written : { ...written, name: named.name };
    const nameRepairs = call === written ? [] : ["tool_name_normalized"];
    // Text too long to accept was cut to a preview when the reply was read (normalize-response).
    const parsed: LenientParse =
      call.oversize === undefined
        ? parseLenientJson(call.arguments)
        : { ok: false, error: tooLongError(call.oversize) };
    if (allowed && !allowed.has(call.name)) {
      return {
        ok: false,
        call,
        kind: "not_permitted",
        tool: entry.tool,
        parsed,
        repairs: nameRepairs,
        error: `${call.name} is not permitted for this user.`,
      };
    }
    if (!parsed.ok) {
      return {
        ok: false,
        call,
        kind: "invalid_args",
        repairs: nameRepairs,
        parsed,
        error: `The arguments for ${call.name} are not valid JSON (${parsed.error}). Send one JSON object.`,
      };
    }
    let raw = parsed.value;
    if (raw === null || raw === undefined) raw = {};
    if (typeof raw !== "object" || Array.isArray(raw)) {
      return {
        ok: false,
        call,
        kind: "invalid_args",
        repairs: [...nameRepairs, ...parsed.repaired],
        parsed,
        error: `The arguments for ${call.name} must be one JSON object with named fields, not ${Array.isArray(raw) ? "an array" : typeof raw}.`,
      };
    }
    const { value, notes } = coerceArgs(raw, entry.schema);
    const result = entry.tool.input.safeParse(value);
    if (!result.success) {
      return {
        ok: false,
        call,
        kind: "invalid_args",
        repairs: [...nameRepairs, ...parsed.repaired],
        parsed,
        error: validationMessage(call.name, result.error),
      };
    }
    return {
      ok: true,
      call,
      tool: entry.tool,
      args: result.data as Record<string, unknown>,
      repairs: [...nameRepairs, ...parsed.repaired],
      notes,
    };
  }

  /**
   * The registered tool a written name means. The exact name wins; otherwise the name is normalized
   * (namespace, `:N`, leaked tokens, case, `-`/`_`) and maps onto a tool the requester may call. A
   * normalized name that matches none of those but exactly one registered tool is that tool (so it is
   * denied and audited as not permitted, never reported as unknown). Ambiguous → unknown.
   */
  private resolveName(
    written: string,
    allowed: ReadonlySet<string> | undefined,
  ): { kind: "tool"; name: string } | { kind: "unknown"; candidates: string[] } {
    if (this.entries.has(written)) return { kind: "tool", name: written };
    const mine = resolveToolName(written, allowed ?? this.entries.keys());
    if (mine.kind === "exact" || mine.kind === "normalized") return { kind: "tool", name: mine.name };
    if (mine.kind === "ambiguous") return { kind: "unknown", candidates: mine.candidates };
    if (!allowed) return { kind: "unknown", candidates: [] };
    const any = resolveToolName(written, this.entries.keys());
    if (any.kind === "normalized") return { kind: "tool", name: any.name };
    return { kind: "unknown", candidates: [] };
  }

  /** Run a validated call. Never throws: failures come back as a result the model can read. */
  async execute(tool: Tool, args: Record<string, unknown>, ctx: ToolContext): Promise<ExecutionResult> {
    const entry = this.entries.get(tool.name);
    if (!entry) throw new HermesError("tool_unknown", `Tool ${tool.name} is not registered.`);
    const started = performance.now();
    const maxAttempts = tool.idempotent ? 1 + Math.max(0, tool.retries) : 1;
    let attempts = 0;
    let lastError = "";
    let timedOut = false;
    while (attempts < maxAttempts && !ctx.signal.aborted) {
      attempts++;
      try {
        const value = await entry.limit(() => runWithTimeout(tool, args, ctx));
        const full = serializeResult(value);
        let resultRef: string | undefined;
        if (full.length > tool.maxResultChars) {
          resultRef = await this.deps.results.put({
            runId: ctx.run.runId,
            sessionKey: ctx.run.sessionKey,
            toolCallId: ctx.callId,
            tool: tool.name,
            content: full,
          });
        }
        return {
          ok: true,
          content: capResult(full, tool.maxResultChars, resultRef).text,
          resultRef,
          attempts,
          durationMs: Math.round(performance.now() - started),
          fullLength: full.length,
        };
      } catch (err) {
        timedOut = err instanceof ToolTimeout;
        lastError = errorMessage(err);
        ctx.logger.warn({ tool: tool.name, attempt: attempts, err: lastError }, "tool attempt failed");
        if (err instanceof HermesError && err.code !== "tool_timeout") break; // deliberate refusals are final
      }
    }
    if (ctx.signal.aborted && !lastError) lastError = "cancelled";
    return {
      ok: false,
      content: `Error from ${tool.name}: ${lastError}`,
      error: lastError,
      timedOut,
      attempts,
      durationMs: Math.round(performance.now() - started),
      fullLength: 0,
    };
  }
}

function duplicateName(name: string): HermesError {
  return new HermesError("config_invalid", `Two tools are named "${name}"; tool names must be unique.`);
}

function entryOf(tool: Tool): Entry {
  const { $schema: _drop, ...schema } = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" });
  // Unknown keys are dropped anyway; saying so up front keeps models from inventing fields.
  schema.additionalProperties ??= false;
  return {
    tool,
    schema,
    definition: definitionHash(tool, schema),
    limit: pLimit(Math.max(1, tool.concurrency)),
  };
}

/**
 * A tool's definition as an approval depends on it: a tool whose list can change while a card waits
 * (an MCP server's `list_changed`, a redeploy) must not run a call approved for something else.
 */
function definitionHash(tool: Tool, schema: Record<string, unknown>): string {
  const approval = typeof tool.approval === "function" ? `fn:${tool.approval.toString()}` : tool.approval;
  return createHash("sha256")
    .update(
      JSON.stringify([
        tool.name,
        tool.description,
        schema,
        tool.level,
        approval,
        tool.approvers,
        tool.dangerous,
      ]),
    )
    .digest("hex");
}

class ToolTimeout extends HermesError {
  constructor(tool: Tool) {
    super("tool_timeout", `${tool.name} did not finish within ${tool.timeoutMs} ms.`);
  }
}

async function runWithTimeout(tool: Tool, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
  // A call that waited for a concurrency slot while its turn was cancelled must not start: an abort
  // listener added now would never fire, and the tool would run to its full timeout.
  if (ctx.signal.aborted) throw new Error("cancelled");
  const controller = new AbortController();
  const onAbort = () => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new ToolTimeout(tool);
      controller.abort(err);
      reject(err);
    }, tool.timeoutMs);
  });
  try {
    return await Promise.race([
      Promise.resolve().then(() =>
        tool.execute(args, {
          run: ctx.run,
          callId: ctx.callId,
          signal: controller.signal,
          get logger() {
            return ctx.logger;
          },
        }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

/** Each bad field by path with what is allowed, for the model to fix its call. */
export function validationMessage(tool: string, error: z.ZodError): string {
  const lines = error.issues.map((i) => {
    const path = i.path.length ? i.path.map(String).join(".") : "(arguments)";
    const missing =
      i.code === "invalid_type" && /received undefined/.test(i.message) ? " (required field is missing)" : "";
    return `- ${path}: ${i.message}${missing}`;
  });
  return `Invalid arguments for ${tool}:\n${lines.join("\n")}\nFix these fields and call ${tool} again.`;
}
