import type { RunIdentity } from "../core/run-identity.ts";
import type { CallContext, Tool } from "../tools/define-tool.ts";

interface ApprovalQuestion {
  tool: Tool;
  args: Record<string, unknown>;
  run: RunIdentity;
  /** Whether the run has seen untrusted content; unknown counts as seen (fail closed). */
  untrustedSeen?: boolean | undefined;
}

/**
 * Does this call need a human's approval? The tool's rule decides: `never`, `always`, or a function
 * of the validated arguments, who runs it and what the run has seen. A rule that throws counts as
 * "yes" (fail closed).
 */
export async function isApprovalNeeded(question: ApprovalQuestion): Promise<boolean> {
  return (await approvalNeed(question)).needed;
}

/** `isApprovalNeeded` with the rule's own sentence for why, when it gave one. */
export async function approvalNeed({
  tool,
  args,
  run,
  untrustedSeen,
}: ApprovalQuestion): Promise<{ needed: boolean; reason?: string }> {
  if (tool.approval === "never") return { needed: false };
  if (tool.approval === "always") return { needed: true };
  const context: CallContext = { untrustedSeen: untrustedSeen ?? true };
  try {
    const answer = await tool.approval(args, run, context);
    return typeof answer === "string" ? { needed: true, reason: answer } : { needed: Boolean(answer) };
  } catch {
    return { needed: true };
  }
}
