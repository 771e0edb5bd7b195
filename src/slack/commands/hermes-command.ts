import type { App } from "@slack/bolt";
import type { SlackMessagePayload } from "../answer-blocks.ts";
import {
  answerHermesCommand,
  type HermesCommandOptions,
  type HermesCommandServices,
} from "./answer-command.ts";
import { registerAuditActions } from "./audit-actions.ts";
import { replyEphemeral } from "./ephemeral-reply.ts";

export type { HermesCommandOptions, HermesCommandServices } from "./answer-command.ts";

/**
 * Registers `/hermes` (help, tools, whoami, approvals, audit, schedule, model) and the audit page
 * buttons (`hermes.audit.next`, `hermes.audit.csv`). Every request is acknowledged first, then
 * answered ephemerally through its `response_url` (falling back to `chat.postEphemeral`); a slow
 * answer (`model`) may say it started in an earlier message. The Approve / Reject buttons on listed
 * approvals are the approval action handler's, registered elsewhere.
 */
export function registerHermesCommand(
  app: App,
  services: HermesCommandServices,
  options: HermesCommandOptions = {},
): void {
  app.command(options.command ?? "/hermes", async ({ ack, command, respond }) => {
    await ack();
    const reply = (message: SlackMessagePayload) =>
      replyEphemeral({
        respond,
        client: services.slack.client,
        logger: services.logger,
        channel: command.channel_id,
        user: command.user_id,
        message,
      });
    const input = {
      userId: command.user_id,
      teamId: command.team_id,
      channelId: command.channel_id,
      text: command.text ?? "",
    };
    await reply(await answerHermesCommand(services, options, input, reply));
  });
  registerAuditActions(app, services, options);
}
