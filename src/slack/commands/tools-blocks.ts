import type { Access } from "../../agent/run/policy-hook.ts";
import type { McpToolSource } from "../../mcp/mcp-tool-source.ts";
import type { Tool } from "../../tools/define-tool.ts";
import { MESSAGE_TEXT_BUDGET, type SlackMessagePayload } from "../answer-blocks.ts";
import { escapeMrkdwn } from "../mrkdwn.ts";
import { type Block, context, fitLines, linesToSections, oneLine, section } from "./block-builders.ts";

const DESCRIPTION_MAX = 140;
const ERROR_MAX = 200;

/** What `/hermes tools` shows of the MCP servers: which tools are whose, and each server's state. */
export type McpToolsView = Pick<McpToolSource, "info" | "health">;

/** The tools `access` allows, by name, as one mrkdwn line each: name, level, approval, description. */
export function toolLines(tools: readonly Tool[], access: Pick<Access, "allowed">): string[] {
  return tools
    .filter((t) => access.allowed.has(t.name))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((t) => toolLine(t));
}

/** One tool: `name` — level · approval — the first line of its description (`prefix` removed). */
function toolLine(tool: Tool, prefix = ""): string {
  const first = tool.description.split("\n")[0] ?? "";
  const own = first.startsWith(prefix) ? first.slice(prefix.length) : first;
  const description = escapeMrkdwn(oneLine(own, DESCRIPTION_MAX));
  return `• \`${tool.name}\` — ${tool.level} · ${approvalLabel(tool)}${description ? ` — ${description}` : ""}`;
}

/**
 * `/hermes tools`: what the caller may use (in the channel, when its profile narrows it), within one
 * message's limits. MCP tools are listed under their server, with the server's state.
 */
export function toolsMessage(
  tools: readonly Tool[],
  access: Pick<Access, "allowed" | "level">,
  mcp?: McpToolsView,
  /** The channel's profile narrowed the list (its own, or the default it falls back to). */
  narrowed?: { source: "channel" | "default" },
): SlackMessagePayload {
  const why = narrowed
    ? `Narrowed by this channel's ${narrowed.source === "channel" ? "profile" : "profile (the default profile)"}: runs here may call only the tools it allows (\`/hermes profile\` shows it).`
    : undefined;
  const mcpNames = new Set(mcp?.info().map((i) => i.name));
  const own = toolLines(
    tools.filter((t) => !mcpNames.has(t.name)),
    access,
  );
  const servers = mcp ? mcpServerLines(tools, access, mcp) : { lines: [], tools: 0 };
  const count = own.length + servers.tools;
  if (count === 0 && servers.lines.length === 0) {
    return {
      text: narrowed ? "You may not use any tools in this channel." : "You may not use any tools.",
      blocks: [
        section(
          narrowed
            ? "You may not use any tools in this channel."
            : "You may not use any tools. Ask an admin.",
        ),
        ...(why ? [context(why)] : []),
      ],
    };
  }
  const { lines, omitted } = fitLines([...own, ...servers.lines], MESSAGE_TEXT_BUDGET - 1000);
  const blocks: Block[] = [
    section(
      `*Tools you may use${narrowed ? " in this channel" : ""}* (${count}, your level: *${access.level}*)`,
    ),
    ...linesToSections(lines),
  ];
  if (omitted > 0) blocks.push(context(`…and ${omitted} more.`));
  if (why) blocks.push(context(why));
  blocks.push(
    context(
      "Tools that need approval post an Approve / Reject card first; nothing runs until someone allowed decides.",
    ),
  );
  return { text: `You may use ${count} tools.`, blocks };
}

/**
 * The MCP part of `/hermes tools`: one heading line per server (its state, and why it is down), then
 * the server's tools the caller may use. Every server is shown, so a caller can tell "down" from
 * "not mine". `tools` counts the tool lines.
 */
function mcpServerLines(
  tools: readonly Tool[],
  access: Pick<Access, "allowed">,
  mcp: McpToolsView,
): { lines: string[]; tools: number } {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const info = mcp.info();
  const lines: string[] = [];
  let count = 0;
  for (const [server, health] of Object.entries(mcp.health()).sort(([a], [b]) => a.localeCompare(b))) {
    const mine = info
      .filter((i) => i.server === server && access.allowed.has(i.name))
      .map((i) => byName.get(i.name))
      .filter((t): t is Tool => t !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name));
    const why = health.error ? ` (${escapeMrkdwn(oneLine(health.error, ERROR_MAX))})` : "";
    const state =
      health.state === "ready"
        ? "ready"
        : `:warning: ${health.state}${why}: its tools answer "unavailable" until it is back`;
    lines.push(`*MCP server \`${server}\`* — ${state}${mine.length === 0 ? " — none you may use" : ""}`);
    lines.push(...mine.map((t) => toolLine(t, `[MCP server ${server}] `)));
    count += mine.length;
  }
  return { lines, tools: count };
}

function approvalLabel(tool: Tool): string {
  if (tool.approval === "never") return "no approval";
  if (tool.approval === "always") return "*needs approval*";
  return "*approval for some arguments*";
}
