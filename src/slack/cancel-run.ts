import type { Config } from "../config.ts";
import { resolveLevel } from "../policy/levels.ts";
import { resumeJobId } from "../queue/jobs.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import type { Storage } from "../storage.ts";
import { type CardDeps, cardUpdatesOf } from "./card-updates-of.ts";
import { updateCard } from "./deliver-result.ts";

/**
 * The requester's `cancel` in a paused thread: every pending call of the run is rejected (through the
 * same atomic decision as a click, so it is audited and a card clicked at the same moment still has
 * one winner), the cards are updated, and the run resumes with the rejections.
 */
export async function cancelPausedRun(
  s: CardDeps & { config: Config; storage: Pick<Storage, "users" | "approvals">; queue: TurnQueue },
  input: { runId: string; userId: string; channel: string; threadTs: string },
): Promise<void> {
  const stored = await s.storage.users.get(input.userId);
  const level = resolveLevel({
    userId: input.userId,
    admins: s.config.env.HERMES_ADMINS,
    stored: stored?.level ?? null,
  });
  const pending = await s.storage.approvals.listPending({ runId: input.runId });
  let rejected = 0;
  for (const a of pending) {
    const r = await s.storage.approvals.decide({
      approvalId: a.id,
      deciderId: input.userId,
      deciderLevel: level,
      decision: "rejected",
    });
    if (r.kind === "decided" || r.kind === "expired") {
      if (r.kind === "decided") rejected++;
      await updateCard(cardUpdatesOf(s), r.approval);
    }
  }
  await s.slack.client.chat.postMessage({
    channel: input.channel,
    thread_ts: input.threadTs,
    text:
      rejected > 0
        ? `Cancelled: I rejected ${rejected} pending ${rejected === 1 ? "call" : "calls"}.`
        : "There was nothing left to cancel.",
  });
  await s.queue.enqueue(
    { type: "resume", runId: input.runId, reason: "decided" },
    { jobId: resumeJobId(input.runId, "cancel") },
  );
}
