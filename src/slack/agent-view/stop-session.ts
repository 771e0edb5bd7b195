import type { Config } from "../../config.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { RunStops } from "../../queue/run-stops.ts";
import type { TurnQueue } from "../../queue/turn-queue.ts";
import type { Storage } from "../../storage.ts";
import { cancelPausedRun } from "../cancel-run.ts";
import type { CardDeps } from "../card-updates-of.ts";
import { sessionKey } from "../session-key.ts";
import { setSessionStatus } from "./session-status.ts";

const DM_ID = /^D[A-Z0-9]{2,20}$/;

/** What a Stop reads and acts with: the run stores, the approval cards, the queue and the run stops. */
export type StopDeps = CardDeps & {
  config: Config;
  logger: Logger;
  storage: Pick<Storage, "users" | "approvals" | "runs">;
  queue: TurnQueue;
  stops?: RunStops;
};

/**
 * The user clicked Stop on an agent session (`agent_session_stopped`): the thread's run stops as a
 * `cancel` stops it. A run at work is aborted wherever it runs (its model call cancelled, no new tool
 * call started, a tool at work given the abort); a run waiting for approval has its pending calls
 * rejected (audited, cards updated) and ends; the session is closed. Only a Stop in a DM is taken
 * (where the person is the only one who can click it), and only the requester's rejects approvals. Never throws: each step that fails is logged and the rest still happen.
 */
export async function stopAgentSession(
  s: StopDeps,
  input: {
    teamId: string;
    channel: string;
    threadTs: string;
    userId: string;
    streamingTs: readonly string[];
  },
): Promise<void> {
  const key = sessionKey({ teamId: input.teamId, channelId: input.channel, ts: input.threadTs });
  const log = s.logger.child({ sessionKey: key, userId: input.userId });
  // Sessions live in the person's DM with Hermes (the Messages tab): only they can click its Stop.
  if (!DM_ID.test(input.channel)) {
    log.warn("a Stop outside a DM with Hermes was ignored");
    return;
  }
  log.info({ streaming: input.streamingTs.length }, "the user stopped the agent session");
  await s.stops
    ?.request(key)
    .catch((err: unknown) => log.warn({ err: errorMessage(err) }, "stop not passed on"));
  try {
    const paused = await s.storage.runs.latestPausedForSession(key);
    if (paused && paused.userId === input.userId) {
      const pending = await s.storage.approvals.listPending({ runId: paused.runId });
      if (pending.length > 0)
        await cancelPausedRun(s, {
          runId: paused.runId,
          userId: input.userId,
          channel: input.channel,
          threadTs: input.threadTs,
        });
    }
  } catch (err) {
    log.error({ err: errorMessage(err) }, "could not reject the stopped run's pending calls");
  }
  await setSessionStatus(s.slack.client, { channel: input.channel, threadTs: input.threadTs }, "closed", log);
}
