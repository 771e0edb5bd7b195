import type { Tool as McpTool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorMessage, HermesError } from "../core/errors.ts";
import type { PermissionLevel } from "../core/permission-levels.ts";
import { capResult } from "../tools/cap-result.ts";
import { defineTool, TOOL_DEFAULTS, type Tool } from "../tools/define-tool.ts";
import { scrubSecrets } from "../tools/http/header-secrets.ts";
import { inputSchemaFromJson } from "../tools/http/input-schema.ts";
import type { SlackPort } from "../tools/slack-port.ts";
import type { McpServerConfig, McpToolOverride } from "./mcp-config.ts";
import type { McpConnection } from "./mcp-connection.ts";
import { renderMcpResult } from "./mcp-result.ts";
import { SCHEMA_LIMITS, schemaOverLimit } from "./schema-limits.ts";
import { cleanToolName, mcpToolNames } from "./tool-name.ts";

const MAX_DESCRIPTION_CHARS = 1024;
/**
 * The server's schema is converted without its `pattern`s (a catastrophic regex would hold the main
 * thread on the model's arguments; the server checks its own input) and with every string capped.
 */
const SCHEMA_OPTIONS = { patterns: false, maxStringLength: 100_000 } as const;
/** The SDK's own request timeout sits just past the tool's: the registry's timeout answers first. */
const SDK_TIMEOUT_MARGIN_MS = 1_000;

/** One offered MCP tool, for `/hermes tools` and /healthz: what it is called and which rules apply. */
export interface McpToolInfo {
  server: string;
  /** The name in the registry (`mcp_<server>_<tool>`). */
  name: string;
  /** The tool's own name on the server. */
  mcpName: string;
  level: PermissionLevel;
  approval: "never" | "always";
}

export interface BuiltMcpTools {
  tools: Tool[];
  info: McpToolInfo[];
  /** Listed tools that are not offered, and why (excluded ones are not listed here). */
  skipped: Array<{ tool: string; why: string }>;
  /** Keys of the config's `tools:` that match no listed tool. */
  unusedOverrides: string[];
}

/**
 * The server's listed tools as registry tools: filtered by include/exclude, named
 * `mcp_<server>_<tool>`, arguments validated by zod from the tool's JSON Schema (so the registry's
 * repair, coercion and validation apply), level and approval from the config, calls through the
 * connection with the turn's signal. `reserved` names (built-ins, other sources) are never reused.
 */
export function buildMcpTools(
  connection: McpConnection,
  options: { slack?: SlackPort; reserved?: ReadonlySet<string> } = {},
): BuiltMcpTools {
  const config = connection.config;
  const skipped: BuiltMcpTools["skipped"] = [];
  const offered = connection.tools.filter((t) => isIncluded(t.name, config));
  const seen = new Set<string>();
  const usable = offered.filter((t) => {
    // Names below are per server tool name: a second tool of the same name would share the first's.
    if (seen.has(t.name)) {
      skipped.push({
        tool: t.name,
        why: "the server lists a tool of this name twice (the first is offered)",
      });
      return false;
    }
    seen.add(t.name);
    if (t.execution?.taskSupport === "required") {
      skipped.push({ tool: t.name, why: "it can only run as an MCP task, which Hermes does not support" });
      return false;
    }
    return true;
  });
  const { names, dropped } = mcpToolNames(
    config.name,
    usable.map((t) => t.name),
  );
  for (const tool of dropped)
    skipped.push({ tool, why: "its name collides with another tool of the server" });

  const built: BuiltMcpTools = {
    tools: [],
    info: [],
    skipped,
    unusedOverrides: unusedOverrides(
      connection.tools.map((t) => t.name),
      config.tools,
    ),
  };
  for (const mcpTool of usable) {
    const name = names.get(mcpTool.name);
    if (!name) continue;
    if (options.reserved?.has(name)) {
      skipped.push({ tool: mcpTool.name, why: `${name} is already the name of another tool` });
      continue;
    }
    // One tool the server got wrong (or made hostile) costs that tool, never the server's whole list.
    try {
      const made = buildOne(connection, mcpTool, name, options.slack);
      if ("why" in made) {
        skipped.push({ tool: mcpTool.name, why: made.why });
        continue;
      }
      built.tools.push(made.tool);
      built.info.push(made.info);
    } catch (err) {
      skipped.push({ tool: mcpTool.name, why: `it could not be made a tool: ${errorMessage(err)}` });
    }
  }
  return built;
}

/** One listed tool as a registry tool, or why it is not offered. */
function buildOne(
  connection: McpConnection,
  mcpTool: McpTool,
  name: string,
  slack: SlackPort | undefined,
): { tool: Tool; info: McpToolInfo } | { why: string } {
  const config = connection.config;
  const over = schemaOverLimit(mcpTool.inputSchema);
  if (over) return { why: over };
  const input = inputSchemaFromJson(mcpTool.inputSchema, SCHEMA_OPTIONS);
  if (!input.ok) return { why: `its input schema is not usable: ${input.problem}` };
  const specChars = JSON.stringify(
    z.toJSONSchema(input.schema, { io: "input", unrepresentable: "any" }),
  ).length;
  if (specChars > SCHEMA_LIMITS.maxSpecChars) {
    return {
      why: `its input schema makes a ${specChars}-character spec (at most ${SCHEMA_LIMITS.maxSpecChars})`,
    };
  }
  const override = overrideFor(mcpTool.name, config.tools);
  const approval = approvalFor(config, override, mcpTool.annotations);
  const level = override.level ?? config.level;
  const timeoutMs = override.timeoutMs ?? config.timeouts.callMs;
  const maxResultChars = override.maxResultChars ?? TOOL_DEFAULTS.maxResultChars;
  const approvers = override.approvers ?? config.approvers;
  const tool = defineTool({
    name,
    description: describe(config.name, mcpTool),
    input: input.schema,
    level,
    approval,
    ...(approvers ? { approvers } : {}),
    // Annotations may only tighten: a destructive hint adds the confirm dialog.
    dangerous: override.dangerous ?? mcpTool.annotations?.destructiveHint === true,
    timeoutMs,
    maxResultChars,
    execute: async (args, ctx) => {
      const result = await connection.callTool(mcpTool.name, args as Record<string, unknown>, {
        signal: ctx.signal,
        timeoutMs: timeoutMs + SDK_TIMEOUT_MARGIN_MS,
      });
      const text = scrubSecrets(
        await renderMcpResult(result, {
          server: config.name,
          tool: mcpTool.name,
          run: ctx.run,
          slack,
          signal: ctx.signal,
        }),
        config.secrets,
      );
      if (result.isError) {
        // The registry caps results but not error sentences: cap it here.
        throw new HermesError("tool_failed", capResult(text || "(no error text)", maxResultChars).text);
      }
      return text === "" ? "(empty result)" : text;
    },
  });
  return {
    tool: tool as unknown as Tool,
    info: { server: config.name, name, mcpName: mcpTool.name, level, approval },
  };
}

/**
 * `never`/`always` as configured; `by_annotations` skips approval only for a trusted server's tool
 * that says `readOnlyHint: true` (and not `destructiveHint: true`). Missing annotations, or any from
 * an untrusted server, need approval: a server's own claims never relax policy.
 */
export function approvalFor(
  config: Pick<McpServerConfig, "approval" | "trusted">,
  override: McpToolOverride,
  annotations: ToolAnnotations | undefined,
): "never" | "always" {
  const rule = override.approval ?? config.approval;
  if (rule !== "by_annotations") return rule;
  const readOnly = annotations?.readOnlyHint === true && annotations.destructiveHint !== true;
  return config.trusted && readOnly ? "never" : "always";
}

/**
 * Include/exclude globs (`*` any run, `?` one character) over the tool's own name and its cleaned
 * form (tool-name.ts, as in the registry name): `exclude: [delete_*]` also excludes `Delete_repo`
 * and `delete-repo`, which the registry offers as `…_delete_repo`.
 */
export function isIncluded(tool: string, config: Pick<McpServerConfig, "include" | "exclude">): boolean {
  const names = [tool, cleanToolName(tool)];
  const matches = (glob: string) => names.some((name) => globMatch(glob, name));
  return config.include.some(matches) && !config.exclude.some(matches);
}

/**
 * The per-tool override for a tool: the key that is its own name, else a key whose cleaned form is
 * its cleaned name (`write_file` for `write-file`). Own keys only: a tool named `__proto__` or
 * `constructor` gets no inherited object.
 */
export function overrideFor(tool: string, overrides: Record<string, McpToolOverride>): McpToolOverride {
  if (Object.hasOwn(overrides, tool)) return overrides[tool]!;
  const cleaned = cleanToolName(tool);
  const key = Object.keys(overrides).find((k) => cleanToolName(k) === cleaned);
  return key === undefined ? {} : overrides[key]!;
}

/** Override keys that apply to none of `tools` (a typo, or a tool the server no longer lists). */
export function unusedOverrides(
  tools: readonly string[],
  overrides: Record<string, McpToolOverride>,
): string[] {
  const own = new Set(tools);
  const cleaned = new Set(tools.map(cleanToolName));
  return Object.keys(overrides).filter((k) => !own.has(k) && !cleaned.has(cleanToolName(k)));
}

export function globMatch(glob: string, text: string): boolean {
  const pattern = glob
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")))
    .join("");
  return new RegExp(`^${pattern}$`, "s").test(text);
}

/** The server's description, labelled with its source and capped: it is the server's text, not ours. */
function describe(server: string, tool: McpTool): string {
  const own = (tool.description ?? tool.title ?? "").trim() || `The ${tool.name} tool.`;
  const text = `[MCP server ${server}] ${own}`;
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : text;
}
