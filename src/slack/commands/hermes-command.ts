import type { App } from "@slack/bolt";
import {
  answerHermesCommand,
  type HermesCommandOptions,
  type HermesCommandServices,
} from "./answer-command.ts";
import { registerAuditActions } from "./audit-actions.ts";
import { replyEphemeral } from "./ephemeral-reply.ts";

export type { HermesCommandOptions, HermesCommandServices } from "./answer-command.ts";

/**
 * Registers `/hermes` (help, tools, whoami, approvals, audit, schedule) and the audit page buttons
 * (`hermes.audit.next`, `hermes.audit.csv`). Every request is acknowledged first, then answered
 * ephemerally through its `response_url` (falling back to `chat.postEphemeral`). The Approve /
 * Reject buttons on listed approvals are the approval action handler's, registered elsewhere.
 */
export function registerHermesCommand(
  app: App,
  services: HermesCommandServices,
  options: HermesCommandOptions = {},
): void {
  app.command(options.command ?? "/hermes", async ({ ack, command, respond }) => {
    await ack();
    const message = await answerHermesCommand(services, options, {
      userId: command.user_id,
      teamId: command.team_id,
      channelId: command.channel_id,
      text: command.text ?? "",
    });
    await replyEphemeral({
      respond,
      client: services.client,
      logger: services.logger,
      channel: command.channel_id,
      user: command.user_id,
      message,
    });
  });
  registerAuditActions(app, services, options);
}
