import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import { resolveAccess } from "../../policy/resolve-access.ts";
import { accessSourcesOf } from "../access-deps.ts";
import type { SlackMessagePayload } from "../answer-blocks.ts";
import { AUDIT_REFUSAL, recordRefusal } from "./admin-refusal.ts";
import { failureMessage, type HermesCommandServices } from "./answer-command.ts";
import { auditPageAnswer } from "./audit-answer.ts";
import { AUDIT_CSV_ACTION, AUDIT_NEXT_ACTION } from "./audit-blocks.ts";
import { exportAuditCsv } from "./audit-csv.ts";
import { decodeAuditState } from "./audit-page-state.ts";
import { textMessage } from "./block-builders.ts";
import { replyEphemeral } from "./ephemeral-reply.ts";

export interface AuditActionOptions {
  auditPageSize?: number;
  now?: () => Date;
}

interface Click {
  kind: "next" | "csv";
  userId: string;
  teamId?: string | undefined;
  channelId?: string | undefined;
  value: string;
}

/**
 * The buttons under a `/hermes audit` page: "Next page" replaces the message with the next page
 * (keyset cursor from the button), "Export CSV" uploads the filtered rows to the admin's DM and
 * says so. Both check again that the clicker is an admin: a level can change after the message.
 */
export function registerAuditActions(
  app: App,
  s: HermesCommandServices,
  options: AuditActionOptions = {},
): void {
  for (const kind of ["next", "csv"] as const) {
    app.action<BlockAction<ButtonAction>>(
      kind === "next" ? AUDIT_NEXT_ACTION : AUDIT_CSV_ACTION,
      async (args) => {
        const { ack, body, action, respond } = args;
        await ack();
        const click: Click = {
          kind,
          userId: body.user.id,
          teamId: body.team?.id,
          channelId: body.channel?.id,
          value: action.value ?? "",
        };
        const { message, replace } = await answerAuditClick(s, options, click);
        await replyEphemeral({
          respond,
          client: s.slack.client,
          logger: s.logger,
          channel: click.channelId,
          user: click.userId,
          message,
          replaceOriginal: replace,
        });
      },
    );
  }
}

async function answerAuditClick(
  s: HermesCommandServices,
  options: AuditActionOptions,
  click: Click,
): Promise<{ message: SlackMessagePayload; replace: boolean }> {
  try {
    const access = await resolveAccess(accessSourcesOf(s), click.userId);
    if (access.level !== "admin") {
      await recordRefusal(s, { ...click, subcommand: `audit.${click.kind}`, reason: AUDIT_REFUSAL });
      return { message: textMessage(AUDIT_REFUSAL), replace: false };
    }
    const state = decodeAuditState(click.value);
    if (click.kind === "next") {
      const reader = { actorId: click.userId, teamId: click.teamId, channelId: click.channelId };
      return {
        message: await auditPageAnswer(s.storage, state, options.auditPageSize, reader),
        replace: true,
      };
    }
    const sent = await exportAuditCsv(s, {
      userId: click.userId,
      teamId: click.teamId,
      channelId: click.channelId,
      filters: state.filters,
      ...(options.now ? { now: options.now() } : {}),
    });
    const more = sent.truncated ? ` (the newest ${sent.rows}; narrow the filters for older rows)` : "";
    const text = `:page_facing_up: I sent \`${sent.filename}\` with ${sent.rows} audit row${sent.rows === 1 ? "" : "s"}${more} to our DM: <#${sent.channel}>.`;
    return { message: textMessage(text), replace: false };
  } catch (err) {
    return {
      message: failureMessage(s, err, { userId: click.userId, subcommand: `audit.${click.kind}` }),
      replace: false,
    };
  }
}
