import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { TraceEvent } from "../agent/run/trace.ts";
import type { Logger } from "../core/logger.ts";
import type { TurnOutput } from "../queue/turn-output.ts";
import type { Storage } from "../storage.ts";
import { createAgentSessionStatus } from "./agent-view/session-status.ts";
import { createAssistantStatus } from "./assistant/assistant-status.ts";
import { postAnswer, showPause, showResult, updateCard } from "./deliver-result.ts";
import { interruptedNotice } from "./interrupted-notice.ts";
import { createProgressText } from "./progress-text.ts";
import { asPaced } from "./rate-limit/paced-web-client.ts";
import { createSlackFiles } from "./slack-files.ts";
import type { SlackOutput } from "./slack-output.ts";
import { createStreamedAnswers, type StreamingSetting } from "./stream/streamed-answers.ts";
import { threadContext } from "./thread-context.ts";
import type { TicketLinks } from "./work-objects/ticket-links.ts";
import { openWorkingMessage } from "./working-message.ts";

/** The workers' output port over the Web API: working messages, answers, approval cards, notices. */
export function createSlackTurnOutput(o: {
  slack: SlackOutput;
  runtime: Pick<AgentRuntime, "registry">;
  storage: Pick<Storage, "approvals">;
  logger: Logger;
  streaming?: StreamingSetting;
  /** How the app is installed: agent sessions' status (`agent_view`, the default) or the assistant's status line. */
  surface?: "agent_view" | "assistant_view";
  /** Answers carry the tickets their run touched as Work Objects, linked here. */
  ticketLinks?: TicketLinks;
}): TurnOutput {
  const { client, progressClient, slack, redactor, bot } = o.slack;
  const paced = asPaced(client);
  // What answers and cards are posted with (`deliver-result.ts`).
  const s = {
    client,
    slack,
    redactor,
    registry: o.runtime.registry,
    logger: o.logger,
    approvals: o.storage.approvals,
    ...(o.ticketLinks ? { ticketLinks: o.ticketLinks } : {}),
  };
  // HERMES_STREAMING: answers stream where Slack allows it, chosen per message (src/slack/stream/).
  const streamed = o.streaming && o.streaming !== "off" ? createStreamedAnswers(s, o.streaming) : undefined;
  return {
    progress: ({ channel, threadTs, ts, text, logger, requester }) => {
      const working = openWorkingMessage({ client: progressClient, channel, threadTs, ts, text, logger });
      const progressText = createProgressText();
      const display = {
        show: (event: TraceEvent) => {
          const line = progressText(event);
          if (line) working.show(line);
        },
        close: () => working.close(),
        workingTs: () => working.ts(),
        discard: () => working.discard(),
      };
      if (!streamed || !requester) return display;
      const recipient = { userId: requester.userId, teamId: requester.teamId };
      return streamed.progress({ channel, threadTs, recipient, logger }, display);
    },
    assistantStatus: ({ requester, ...line }) => {
      const status =
        o.surface === "assistant_view"
          ? createAssistantStatus({ client: s.client, ...line })
          : createAgentSessionStatus({ client: s.client, ...line });
      if (!streamed || !requester) return status;
      const recipient = { userId: requester.userId, teamId: requester.teamId };
      return streamed.statusLine({ ...line, recipient }, status);
    },
    requesterTimezone: async (userId) => (await s.slack.getUser(userId).catch(() => undefined))?.tz,
    files: createSlackFiles({
      client,
      // Paced clients say which token goes with a call now (OAuth installs: the turn's workspace's).
      token: paced ? () => paced.currentToken() : (client.token ?? ""),
      ...(client.slackApiUrl ? { slackApiUrl: client.slackApiUrl } : {}),
    }),
    postNotice: async (text, target) => {
      await s.client.chat.postMessage({
        channel: target.channel,
        thread_ts: target.threadTs,
        text: escapeText(s.redactor.redactSecrets(text)),
      });
    },
    threadContext: (o) =>
      threadContext({
        client: s.client,
        channel: o.channel,
        threadTs: o.threadTs,
        currentTs: o.currentTs,
        botUserId: bot.userId,
        logger: o.logger,
      }),
    postAnswer: async (markdown, target, options) =>
      postAnswer(s, markdown, (await streamed?.settle(target)) ?? target, options),
    showResult: async (result, target) => {
      if (!(await streamed?.showResult(result, target))) await showResult(s, result, target);
    },
    showPause: async (approvals, target) =>
      showPause(s, approvals, (await streamed?.settle(target)) ?? target),
    updateCard: (approval, outcome) => updateCard(s, approval, outcome),
    tellInterrupted: async (call) => {
      await s.client.chat.postMessage({
        channel: call.channel,
        thread_ts: call.threadTs,
        text: interruptedNotice(call),
      });
    },
  };
}

/** Plain text as Slack shows it: `&`, `<` and `>` escaped, so a file name cannot mention or link. */
function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
