import { errorMessage, isHermesError } from "../../core/errors.ts";
import type { RunIdentity } from "../../core/run-identity.ts";
import type { Tool } from "../../tools/define-tool.ts";

export type ResolvedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/**
 * How long a call may wait for its names to be looked up: a big workspace's first directory fetch
 * takes minutes at Slack's pace, and the run must not hang on it.
 */
export const RESOLVE_TIMEOUT_MS = 20_000;

/**
 * The call's arguments with names turned into ids by the tool's own `resolveArgs` (`#general` → `C…`),
 * before policy: a guard must judge the channel the message will really go to, and the audit log
 * and the approval card must show it. A tool without `resolveArgs` keeps its arguments as they are.
 * A failure is the sentence for the person ("No channel named #genral. Did you mean #general?").
 * The look-up stops when the run is cancelled (`signal`) or after `timeoutMs`.
 */
export async function resolveCallArgs(
  tool: Tool,
  args: Record<string, unknown>,
  run: RunIdentity,
  { signal, timeoutMs = RESOLVE_TIMEOUT_MS }: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<ResolvedArgs> {
  if (!tool.resolveArgs) return { ok: true, args };
  const timeout = AbortSignal.timeout(timeoutMs);
  const bounded = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    return { ok: true, args: (await tool.resolveArgs(args, run, bounded)) as Record<string, unknown> };
  } catch (err) {
    if (signal?.aborted) {
      return { ok: false, error: "The run was stopped while the names in the arguments were looked up." };
    }
    const reason = errorMessage(err);
    return {
      ok: false,
      error: isHermesError(err) ? reason : `Could not resolve the names in the arguments: ${reason}`,
    };
  }
}
