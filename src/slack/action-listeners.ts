import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import type { Config } from "../config.ts";
import { errorMessage } from "../core/errors.ts";
import type { Approval, DecideResult } from "../policy/approval-store.ts";
import { resolveLevel } from "../policy/levels.ts";
import { resumeJobId } from "../queue/jobs.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import type { Storage } from "../storage.ts";
import { APPROVE_ACTION, approvalCard, type CardState, REJECT_ACTION, slackDate } from "./approval-card.ts";
import { type CardDeps, cardUpdatesOf } from "./card-updates-of.ts";
import { toCardApproval, updateCard } from "./deliver-result.ts";
import { registerFeedbackListener } from "./feedback-listener.ts";
import type { SlackOutput } from "./slack-output.ts";

/** What a click is decided with: the approvals and the clicker's level, the queue, the card. */
export interface ActionDeps extends CardDeps {
  config: Config;
  storage: Pick<Storage, "approvals" | "users" | "feedback">;
  slack: Pick<SlackOutput, "client" | "redactor" | "slack" | "bot">;
  queue: TurnQueue;
}

/**
 * Approve / Reject clicks. Ack first, then one atomic decision in Postgres: exactly one click wins,
 * however many arrive. The winner's card is updated in place and the run resumes in a worker; anyone
 * else gets an ephemeral sentence saying why nothing happened.
 */
export function registerActionListeners(
  app: App,
  s: ActionDeps,
  options: { refreshHome?: (userId: string) => Promise<unknown> } = {},
): void {
  registerFeedbackListener(app, s);
  for (const [actionId, decision] of [
    [APPROVE_ACTION, "approved"],
    [REJECT_ACTION, "rejected"],
  ] as const) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, respond }) => {
      await ack();
      // The request guard refuses clicks without a user; this keeps the handler safe on its own.
      const userId = body.user?.id;
      if (typeof userId !== "string" || !userId) {
        s.logger.warn({ actionId }, "approval click without a user ignored");
        return;
      }
      const approvalId = typeof action.value === "string" ? action.value : "";
      const channel = body.channel?.id ?? body.container?.channel_id;
      const threadTs = body.message?.thread_ts ?? body.container?.thread_ts;
      const log = s.logger.child({ approvalId, userId });
      const tell = (text: string) =>
        channel
          ? s.slack.client.chat
              .postEphemeral({ channel, user: userId, text, ...(threadTs ? { thread_ts: threadTs } : {}) })
              .catch((err: unknown) =>
                log.warn({ err: errorMessage(err) }, "could not send the ephemeral reply"),
              )
          : Promise.resolve();
      try {
        const stored = await s.storage.users.get(userId);
        const level = resolveLevel({
          userId,
          admins: s.config.env.HERMES_ADMINS,
          stored: stored?.level ?? null,
        });
        // A card in a conversation decides only its own approval; App Home and the ephemeral
        // `/hermes approvals` list show copies, so their clicks are not bound to a message.
        const container = body.container;
        const onCard =
          container?.type === "message" &&
          !container.is_ephemeral &&
          typeof container.message_ts === "string";
        const result = await s.storage.approvals.decide({
          approvalId,
          deciderId: userId,
          deciderLevel: level,
          decision,
          ...(onCard ? { clickedCard: { channelId: channel, ts: container.message_ts as string } } : {}),
        });
        log.info({ result: result.kind }, "approval click");
        const clicked = onCard ? { channel, ts: container.message_ts } : undefined;
        await settle(s, await withClickedCard(s, result, clicked), tell);
        // A card clicked elsewhere than in its thread: the App Home is republished, an ephemeral
        // `/hermes approvals` list is replaced, so no live buttons stay behind.
        if (body.container?.type === "view") await options.refreshHome?.(userId);
        else if (body.container?.is_ephemeral && "approval" in result) {
          const card = approvalCard(
            toCardApproval(cardUpdatesOf(s), result.approval),
            decidedState(result.approval),
          );
          await respond({ replace_original: true, text: card.text, blocks: card.blocks }).catch(
            () => undefined,
          );
        }
      } catch (err) {
        log.error({ err: errorMessage(err) }, "approval click failed");
        await tell(
          ":warning: I could not record your decision right now (storage unavailable). Nothing was run; please try again.",
        );
      }
    });
  }
}

async function settle(
  s: Pick<ActionDeps, "queue" | "logger"> & CardDeps,
  result: DecideResult,
  tell: (text: string) => Promise<unknown>,
): Promise<void> {
  switch (result.kind) {
    case "decided":
    case "expired": {
      const a = result.approval;
      await updateCard(cardUpdatesOf(s), a);
      if (a.runId) {
        try {
          await s.queue.enqueue(
            {
              type: "resume",
              runId: a.runId,
              approvalId: a.id,
              reason: result.kind === "expired" ? "expired" : "decided",
            },
            { jobId: resumeJobId(a.runId, a.id) },
          );
        } catch (err) {
          // The decision is in Postgres; the background sweep queues the resume once the queue is back.
          s.logger.warn(
            { err: errorMessage(err), runId: a.runId, approvalId: a.id },
            "resume not queued yet",
          );
          await tell(
            `Your decision is recorded (${a.status}). My queue is unavailable right now, so the request continues as soon as it is back.`,
          );
        }
      }
      if (result.kind === "expired") await tell("This approval had expired, so nothing was run.");
      return;
    }
    case "already_decided": {
      const a = result.approval;
      const by = a.decidedBy ? ` by <@${a.decidedBy}>` : "";
      const when = a.decidedAt ? ` ${slackDate(a.decidedAt)}` : "";
      await tell(`This was already ${a.status}${by}${when}.`);
      return;
    }
    case "refused":
      await tell(`You can't decide this: ${result.reason}.`);
      return;
    case "args_mismatch":
      await tell(`Not run: ${result.reason}.`);
      return;
    case "not_found":
      await tell("I can't find this approval any more.");
      return;
  }
}

/**
 * A card whose location was never recorded (the process that posted it died first) is the message
 * that was clicked: it is recorded now, so this update and the resume's find it.
 */
async function withClickedCard(
  s: Pick<ActionDeps, "storage" | "logger">,
  result: DecideResult,
  clicked: { channel: string | undefined; ts: string | undefined } | undefined,
): Promise<DecideResult> {
  if (!clicked?.channel || !clicked.ts || !("approval" in result) || result.approval.cardTs) return result;
  const card = { channel: clicked.channel, ts: clicked.ts };
  // Before the resume is queued, so the resume's card update finds it too.
  await s.storage.approvals
    .setCard(result.approval.id, card)
    .catch((err: unknown) =>
      s.logger.warn({ err: errorMessage(err), approvalId: result.approval.id }, "could not record the card"),
    );
  return {
    ...result,
    approval: { ...result.approval, cardChannel: card.channel, cardTs: card.ts },
  } as DecideResult;
}

function decidedState(a: Approval): CardState {
  return a.status === "pending"
    ? { kind: "pending" }
    : { kind: "decided", status: a.status, by: a.decidedBy ?? undefined, at: a.decidedAt ?? new Date() };
}
