import { createHash } from "node:crypto";

/**
 * Registry names for MCP tools: `mcp_<server>_<tool>`, fitting our rule (`^[a-z][a-z0-9_]{0,63}$`,
 * define-tool.ts) and so OpenAI's (`^[a-zA-Z0-9_-]{1,64}$`). Server names have no `_`, so two servers
 * never share a prefix. Within a server, a name is a function of the tool's own name, except that
 * tools whose cleaned names collide (`get-sum` and `get_sum`) all get a hash of their own name: the
 * same tool list always gives the same names, across restarts.
 */

export const MAX_TOOL_NAME = 64;
const HASH_CHARS = 8;

/** `mcp_<server>_`: the prefix every tool of the server has. */
export function mcpToolPrefix(server: string): string {
  return `mcp_${server}_`;
}

/** Lower case, every character outside `[a-z0-9_]` → `_`; an empty result is `tool`. */
export function cleanToolName(name: string): string {
  const cleaned = name.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  return cleaned === "" ? "tool" : cleaned;
}

/** Short, stable hash of the tool's own name (hex: lowercase letters and digits only). */
export function toolNameHash(name: string): string {
  return createHash("sha256").update(name, "utf8").digest("hex").slice(0, HASH_CHARS);
}

/** The registry name of one tool; `hashed` forces the hash suffix (for a collision group). */
export function mcpToolName(server: string, tool: string, hashed = false): string {
  const prefix = mcpToolPrefix(server);
  const cleaned = cleanToolName(tool);
  if (!hashed && prefix.length + cleaned.length <= MAX_TOOL_NAME) return prefix + cleaned;
  const room = MAX_TOOL_NAME - prefix.length - 1 - HASH_CHARS;
  return `${prefix}${cleaned.slice(0, room)}_${toolNameHash(tool)}`;
}

/**
 * Registry names for all of a server's tools (original name → registry name). Names that would
 * collide are hashed; a collision that remains (a hash equal to another tool's literal name, or a
 * hash collision) drops the later tool in sorted order, reported in `dropped`. Names are unique.
 */
export function mcpToolNames(
  server: string,
  tools: readonly string[],
): { names: Map<string, string>; dropped: string[] } {
  const sorted = [...new Set(tools)].sort();
  const plain = new Map<string, string[]>();
  for (const tool of sorted) {
    const name = mcpToolName(server, tool);
    plain.set(name, [...(plain.get(name) ?? []), tool]);
  }
  const names = new Map<string, string>();
  const used = new Set<string>();
  const dropped: string[] = [];
  for (const tool of sorted) {
    const collides = (plain.get(mcpToolName(server, tool))?.length ?? 0) > 1;
    const name = mcpToolName(server, tool, collides);
    if (used.has(name)) {
      dropped.push(tool);
      continue;
    }
    used.add(name);
    names.set(tool, name);
  }
  return { names, dropped };
}
