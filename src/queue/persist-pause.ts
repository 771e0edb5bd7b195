import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { RunSnapshot } from "../agent/run/snapshot.ts";
import type { Approval } from "../policy/approval-store.ts";
import type { Storage } from "../storage.ts";
import { sealPending } from "./call-bindings.ts";

/**
 * Stores a paused run: its snapshot and one approval per pending call, in one transaction, so a card
 * is never shown for a run that was not kept (nor a run kept without its approvals). The snapshot
 * binds each pending call by its keyed hash, as its approval does (`sealPending`).
 */
export async function persistPause(
  s: { storage: Pick<Storage, "db" | "runs" | "approvals">; runtime: Pick<AgentRuntime, "registry"> },
  snapshot: RunSnapshot,
): Promise<Approval[]> {
  const run = snapshot.run;
  const { db, runs, approvals } = s.storage;
  return db.db.transaction(async (tx) => {
    await runs.savePaused(sealPending(snapshot, approvals.binding), tx);
    const out: Approval[] = [];
    for (const p of snapshot.pending) {
      const tool = s.runtime.registry.get(p.tool);
      out.push(
        await approvals.create(
          {
            tool: p.tool,
            args: p.args,
            requesterId: run.userId,
            sessionKey: run.sessionKey,
            runId: run.runId,
            toolCallId: p.callId,
            teamId: run.teamId,
            channelId: run.channelId,
            threadTs: run.threadTs,
            approvers: tool?.approvers,
            reason: p.reason,
          },
          tx,
        ),
      );
    }
    return out;
  });
}
