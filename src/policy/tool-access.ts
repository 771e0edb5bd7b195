import type { PermissionLevel } from "../core/permission-levels.ts";
import type { Tool } from "../tools/define-tool.ts";
import { isAtLeast } from "./levels.ts";

export interface ToolAccessOptions {
  tools: readonly Tool[];
  level: PermissionLevel;
  /** Per-user allow list from `users.tool_allow`: when set, only these (still subject to level). */
  allow?: readonly string[] | null;
  /** Per-user deny list from `users.tool_deny`: always wins. */
  deny?: readonly string[] | null;
}

/**
 * The tools a user may call. Rule: the level must reach the tool's level; a deny entry always wins;
 * an allow list narrows but never raises (a viewer allowed `delete_ticket` still cannot call it).
 */
export function allowedToolNames({ tools, level, allow, deny }: ToolAccessOptions): Set<string> {
  const denied = new Set(deny ?? []);
  const allowed = allow && allow.length > 0 ? new Set(allow) : undefined;
  const out = new Set<string>();
  for (const tool of tools) {
    if (!isAtLeast(level, tool.level)) continue;
    if (denied.has(tool.name)) continue;
    if (allowed && !allowed.has(tool.name)) continue;
    out.add(tool.name);
  }
  return out;
}

/** Why `name` is not callable by this user: a sentence for the model and the audit log. */
export function whyNotAllowed(
  tool: Tool | undefined,
  name: string,
  options: Omit<ToolAccessOptions, "tools">,
): string {
  if (!tool) return `there is no tool named ${name}`;
  if (!isAtLeast(options.level, tool.level))
    return `${name} needs level ${tool.level}; the requester is ${options.level}`;
  if (options.deny?.includes(name)) return `${name} is blocked for this user by an admin`;
  return `${name} is not on this user's list of allowed tools`;
}
