import { type CallOutcome, pendingOf, runCalls } from "./call-tools.ts";
import { createRunWrites, drainedAfter } from "./checkpoint-writes.ts";
import { loop, reopenRun } from "./loop.ts";
import type { DurableDeps, TurnResult } from "./runtime-types.ts";
import type { RunSnapshot, SettledCall } from "./snapshot.ts";
import { openCalls } from "./state.ts";
import { callEnv, settleCalls } from "./step.ts";
import { INTERRUPTED_RESULT } from "./stop-messages.ts";
import type { LastStep } from "./stop-rules.ts";
import { turnSignal } from "./turn-signal.ts";

/**
 * Continues a run whose worker died, from its last checkpoint: steps already done are not asked of
 * the model again. The calls the checkpoint has no result for are settled as `settled` says (from
 * the audit log): a recorded outcome becomes the call's result, an interrupted call gets a result
 * saying so (it is never run again), and only calls that were never requested are handled now.
 */
export async function continueRun(
  snapshot: RunSnapshot,
  settled: Record<string, SettledCall>,
  deps: DurableDeps,
): Promise<TurnResult> {
  const { state, tracer } = reopenRun(snapshot, deps);
  const open = openCalls(state.messages);
  // A resume with the dead worker's open calls as its "decisions" (the replay shows them as such).
  tracer.emit("run.resume", {
    recovered: true,
    decisions: Object.fromEntries(open.map((c) => [c.id, settled[c.id]?.kind ?? "not_started"])),
  });
  const { signal, dispose } = turnSignal(deps);
  const writes = createRunWrites(deps.checkpoint);
  try {
    return await drainedAfter(writes, async () => {
      let last: LastStep = { kind: "next" };
      if (open.length > 0) {
        const outcomes: CallOutcome[] = [];
        const fresh = open.filter((c) => (settled[c.id]?.kind ?? "not_started") === "not_started");
        for (const call of open) {
          const s = settled[call.id];
          if (!s || s.kind === "not_started") continue;
          const content = s.kind === "interrupted" ? INTERRUPTED_RESULT : s.content;
          const message = { role: "tool" as const, toolCallId: call.id, name: call.name, content };
          outcomes.push({ kind: "result", call, message, failed: s.kind === "result" && s.failed });
        }
        if (fresh.length > 0) {
          const env = callEnv(state, deps, tracer, signal, writes);
          outcomes.push(...(await runCalls(fresh, env)).outcomes);
        }
        state.insertResults(outcomes);
        if (signal.aborted) last = { kind: "aborted", cancelled: deps.signal?.aborted === true };
        else {
          const end = settleCalls({ state, tracer, deps, writes }, outcomes, pendingOf(outcomes));
          if (end.kind === "end") return end.result;
          last = end;
        }
      }
      return await loop(state, deps, tracer, writes, signal, last);
    });
  } finally {
    dispose();
  }
}
