import type { RunIdentity, Tool } from "../tools/define-tool.ts";

/**
 * Does this call need a human's approval? The tool's rule decides: `never`, `always`, or a function
 * of the validated arguments and who runs it. A rule that throws counts as "yes" (fail closed).
 */
export async function isApprovalNeeded({
  tool,
  args,
  run,
}: {
  tool: Tool;
  args: Record<string, unknown>;
  run: RunIdentity;
}): Promise<boolean> {
  if (tool.approval === "never") return false;
  if (tool.approval === "always") return true;
  try {
    return Boolean(await tool.approval(args, run));
  } catch {
    return true;
  }
}
