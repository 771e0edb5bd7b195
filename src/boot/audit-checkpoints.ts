import type { SlackServices } from "../slack/services.ts";
import type { AuditCheckpoint } from "../store/audit-checkpoint.ts";
import { checkpointFilePath } from "../store/audit-checkpoint-file.ts";
import { startAuditCheckpoints } from "../store/audit-checkpoint-schedule.ts";

/**
 * The audit checkpoints as configured: `HERMES_AUDIT_CHECKPOINT_FILE` (default under the data dir)
 * every `HERMES_AUDIT_CHECKPOINT_MINUTES`, and posted to `HERMES_AUDIT_CHECKPOINT_CHANNEL` when set.
 */
export function startConfiguredAuditCheckpoints(
  s: Pick<SlackServices, "audit" | "config" | "client" | "logger">,
) {
  const env = s.config.env;
  const channel = env.HERMES_AUDIT_CHECKPOINT_CHANNEL;
  return startAuditCheckpoints({
    audit: s.audit,
    file: checkpointFilePath(env),
    everyMinutes: env.HERMES_AUDIT_CHECKPOINT_MINUTES,
    post: channel
      ? async (checkpoint) => {
          await s.client.chat.postMessage({ channel, text: checkpointText(checkpoint) });
        }
      : undefined,
    logger: s.logger.child({ component: "audit-checkpoint" }),
  });
}

/** The channel message: the checkpoint's JSON, ready to paste into `verify --checkpoint`. */
function checkpointText(c: AuditCheckpoint): string {
  return [
    `:lock: Audit checkpoint: row ${c.id}, hash \`${c.hash.slice(0, 16)}…\`, signed ${c.at}.`,
    "Check the log against it: `npm run audit -- verify --checkpoint '<the JSON below>'`",
    `\`\`\`${JSON.stringify(c)}\`\`\``,
  ].join("\n");
}
