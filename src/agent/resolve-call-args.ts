import { errorMessage, isHermesError } from "../errors.ts";
import type { RunIdentity, Tool } from "../tools/define-tool.ts";

export type ResolvedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/**
 * The call's arguments with names turned into ids by the tool's own `resolveArgs` (`#general` → `C…`),
 * before policy: a guard must judge the channel the message will really go to, and the audit log
 * and the approval card must show it. A tool without `resolveArgs` keeps its arguments as they are.
 * A failure is the sentence for the person ("No channel named #genral. Did you mean #general?").
 */
export async function resolveCallArgs(
  tool: Tool,
  args: Record<string, unknown>,
  run: RunIdentity,
): Promise<ResolvedArgs> {
  if (!tool.resolveArgs) return { ok: true, args };
  try {
    return { ok: true, args: (await tool.resolveArgs(args, run)) as Record<string, unknown> };
  } catch (err) {
    const reason = errorMessage(err);
    return {
      ok: false,
      error: isHermesError(err) ? reason : `Could not resolve the names in the arguments: ${reason}`,
    };
  }
}
