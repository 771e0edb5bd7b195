import type { TurnResult } from "../agent/runtime-types.ts";
import { persistPause } from "./persist-pause.ts";
import type { ReplyTarget } from "./turn-output.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/**
 * Shows a turn's outcome in its thread. A paused run is stored with its approvals first, then its
 * cards are posted; an answer or a failure is shown as such.
 */
export async function deliverOutcome(
  s: Pick<WorkerDeps, "db" | "runs" | "approvals" | "registry" | "output">,
  result: TurnResult,
  target: ReplyTarget,
): Promise<void> {
  if (result.status === "paused" && result.snapshot) {
    const created = await persistPause(s, result.snapshot);
    return s.output.showPause(created, target);
  }
  return s.output.showResult(result, target);
}
