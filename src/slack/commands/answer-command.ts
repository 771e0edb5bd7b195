import { errorMessage, isHermesError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import type { Storage } from "../../storage.ts";
import { accessSourcesOf } from "../access-deps.ts";
import type { SlackMessagePayload } from "../answer-blocks.ts";
import type { SlackOutput } from "../slack-output.ts";
import { type AccessServices, accessAnswer } from "./access-answer.ts";
import { AUDIT_REFUSAL, recordRefusal, SCHEDULE_REFUSAL } from "./admin-refusal.ts";
import { auditPageAnswer } from "./audit-answer.ts";
import { resolveAuditChannel, resolveAuditUser } from "./audit-user-filter.ts";
import { textMessage } from "./block-builders.ts";
import { type BudgetServices, budgetAnswer } from "./budget-answer.ts";
import { helpText, shortHelp } from "./help-text.ts";
import { modelAnswer } from "./model-answer.ts";
import { parseAuditFilters } from "./parse-audit-filters.ts";
import { parseHermesCommand } from "./parse-hermes-command.ts";
import { profileAnswer } from "./profile-answer.ts";
import { runAnswer, runsAnswer } from "./runs-answer.ts";
import { type ScheduleCommandOptions, scheduleAnswer } from "./schedule-answer.ts";
import { usageAnswer } from "./usage-answer.ts";

export type HermesCommandServices = AccessServices & {
  logger: Logger;
  storage: Pick<Storage, "audit" | "runQuery" | "profiles">;
  slack: Pick<SlackOutput, "client" | "slack">;
  budgets?: BudgetServices["budgets"];
};

export interface HermesCommandOptions extends ScheduleCommandOptions {
  /** The slash command's name; `/hermes` unless the app is installed under another (e.g. `/hermes-dev`). */
  command?: string;
  /** Rows per `/hermes audit` page (default 20, at most 30). */
  auditPageSize?: number;
}

export interface CommandInput {
  userId: string;
  teamId?: string | undefined;
  channelId?: string | undefined;
  text: string;
}

/**
 * The ephemeral answer to `/hermes <text>`. Admin-only subcommands check the caller's level first
 * (a refusal is logged and audited) and only then look at their arguments. Never throws: a failure
 * becomes one sentence, the cause goes to the log.
 */
export async function answerHermesCommand(
  s: HermesCommandServices,
  options: HermesCommandOptions,
  input: CommandInput,
  /** An earlier message while a slow answer is worked out (`/hermes model`). */
  notify?: (message: SlackMessagePayload) => Promise<void>,
): Promise<SlackMessagePayload> {
  const name = options.command ?? "/hermes";
  const parsed = parseHermesCommand(input.text);
  try {
    switch (parsed.kind) {
      case "help":
        return textMessage(helpText(name));
      case "unknown":
        return textMessage(shortHelp(parsed.word, name));
      case "tools":
      case "whoami":
      case "approvals":
        return await accessAnswer(s, parsed.kind, input);
      case "model":
        return await modelAnswer(s, input, notify);
      case "audit": {
        const access = await resolveAccess(accessSourcesOf(s), input.userId);
        if (access.level !== "admin") {
          await recordRefusal(s, { ...input, subcommand: "audit", reason: AUDIT_REFUSAL });
          return textMessage(AUDIT_REFUSAL);
        }
        const written = parseAuditFilters(parsed.args, options.now?.() ?? new Date());
        if (!written.ok) return textMessage(`:warning: ${written.error}`);
        const byUser = await resolveAuditUser(s.slack.slack, written.filters, written.userName);
        if (!byUser.ok) return textMessage(`:warning: ${byUser.error}`);
        const filters = await resolveAuditChannel(s.slack.slack, byUser.filters, written.channelName);
        if (!filters.ok) return textMessage(`:warning: ${filters.error}`);
        return await auditPageAnswer(
          s.storage,
          { filters: filters.filters, page: 1 },
          options.auditPageSize,
          {
            actorId: input.userId,
            teamId: input.teamId,
            channelId: input.channelId,
          },
        );
      }
      case "run":
        return await runAnswer(s, input, parsed.args);
      case "runs":
        return await runsAnswer(s, input, parsed.args, options.now?.() ?? new Date());
      case "schedule": {
        const access = await resolveAccess(accessSourcesOf(s), input.userId);
        if (access.level !== "admin") {
          await recordRefusal(s, { ...input, subcommand: "schedule", reason: SCHEDULE_REFUSAL });
          return textMessage(SCHEDULE_REFUSAL);
        }
        return textMessage(
          await scheduleAnswer(options, {
            ...input,
            text: parsed.text,
            logger: s.logger,
            directory: s.slack.slack,
          }),
        );
      }
      case "budget":
        return textMessage(await budgetAnswer(s, input, parsed.args));
      case "usage":
        return textMessage(await usageAnswer(s, input));
      case "profile":
        return textMessage(await profileAnswer(s, input, parsed.args));
    }
  } catch (err) {
    return failureMessage(s, err, { userId: input.userId, subcommand: parsed.kind });
  }
}

/** One sentence for the user (a HermesError's own message, which is written for them); the cause is logged. */
export function failureMessage(
  s: { logger: Logger },
  err: unknown,
  context: { userId: string; subcommand: string },
): SlackMessagePayload {
  s.logger.error({ err: errorMessage(err), ...context }, "/hermes command failed");
  if (isHermesError(err)) return textMessage(`:warning: ${err.message}`);
  return textMessage(
    ":warning: Something went wrong answering that. Try again in a moment; the log has the details.",
  );
}
