import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { TurnResult } from "../agent/run/runtime-types.ts";
import type { Storage } from "../storage.ts";
import { persistPause } from "./persist-pause.ts";
import type { ReplyTarget, TurnOutput } from "./turn-output.ts";

/**
 * Shows a turn's outcome in its thread. A paused run is stored with its approvals first, then its
 * cards are posted; an answer or a failure is shown as such.
 */
export async function deliverOutcome(
  s: {
    storage: Pick<Storage, "db" | "runs" | "approvals">;
    runtime: Pick<AgentRuntime, "registry">;
    output: TurnOutput;
  },
  result: TurnResult,
  target: ReplyTarget,
): Promise<void> {
  if (result.status === "paused" && result.snapshot) {
    const created = await persistPause(s, result.snapshot);
    return s.output.showPause(created, target);
  }
  return s.output.showResult(result, target);
}
