import type { PolicyGuard, PolicyHook } from "../agent/run/policy-hook.ts";
import { approvalNeed } from "./is-approval-needed.ts";
import { allowedToolNames, type ToolAccessOptions, whyNotAllowed } from "./tool-access.ts";

export interface PolicyOptions extends ToolAccessOptions {
  /** Deny reasons by tool name; a guard that throws denies (fail closed). */
  guards?: Readonly<Record<string, PolicyGuard>>;
}

/**
 * The policy for one requester: who may call what (level, allow/deny lists), tool guards, and which
 * calls need approval (the tool's rule, which may weigh what the run has seen). The model's choice
 * never grants anything; at resume (`approved`) everything but the approval itself is checked again.
 */
export function createPolicy(options: PolicyOptions): { hook: PolicyHook; allowed: Set<string> } {
  const allowed = allowedToolNames(options);
  const hook: PolicyHook = async ({ tool, args, run, approved, untrustedSeen }) => {
    if (!allowed.has(tool.name)) return { action: "deny", reason: whyNotAllowed(tool, tool.name, options) };
    const guard = options.guards?.[tool.name];
    if (guard) {
      let reason: string | undefined;
      try {
        reason = await guard({ args, run });
      } catch (err) {
        reason = `the permission check failed (${err instanceof Error ? err.message : String(err)})`;
      }
      if (reason) return { action: "deny", reason };
    }
    if (!approved) {
      const need = await approvalNeed({ tool, args, run, untrustedSeen });
      if (need.needed)
        return need.reason ? { action: "needs_approval", reason: need.reason } : { action: "needs_approval" };
    }
    return { action: "allow" };
  };
  return { hook, allowed };
}
