import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { Storage } from "../../storage.ts";

export const AUDIT_REFUSAL = "Only admins can query the audit log.";
export const SCHEDULE_REFUSAL = "Only admins can manage schedules.";
export const MODEL_REFUSAL = "Only admins can check the model.";

/** The `tool` column of audit rows about `/hermes` itself (never a registry name: those are snake_case). */
export const COMMAND_AUDIT_TOOL = "/hermes";

export interface Refusal {
  userId: string;
  teamId?: string | undefined;
  channelId?: string | undefined;
  /** `audit`, `audit.next`, `audit.csv`, `schedule`, `model`. */
  subcommand: string;
  reason: string;
}

/**
 * Records a refused admin-only command: a warning in the log and a `tool.denied` row in the audit
 * log, so admins can see who tried. The refusal stands even when the row cannot be written.
 */
export async function recordRefusal(
  s: { storage: Pick<Storage, "audit">; logger: Logger },
  refusal: Refusal,
): Promise<void> {
  const { userId, teamId, channelId, subcommand, reason } = refusal;
  s.logger.warn({ userId, channelId, subcommand }, "admin-only /hermes command refused");
  try {
    await s.storage.audit.append({
      action: "tool.denied",
      tool: COMMAND_AUDIT_TOOL,
      userId,
      teamId: teamId ?? null,
      channelId: channelId ?? null,
      args: { subcommand },
      error: reason,
    });
  } catch (err) {
    s.logger.error(
      { err: errorMessage(err), userId, subcommand },
      "could not audit a refused /hermes command",
    );
  }
}
