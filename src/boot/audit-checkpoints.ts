import type { Config } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import type { SlackOutput } from "../slack/slack-output.ts";
import type { Storage } from "../storage.ts";
import type { AuditCheckpoint } from "../store/audit-checkpoint.ts";
import { checkpointFilePath } from "../store/audit-checkpoint-file.ts";
import { startAuditCheckpoints } from "../store/audit-checkpoint-schedule.ts";

/** A period's claim is never taken over: a process that died after claiming just skips that one. */
const CLAIM_FOREVER_MS = 365 * 24 * 3600_000;

/**
 * The audit checkpoints as configured: `HERMES_AUDIT_CHECKPOINT_FILE` (default under the data dir)
 * every `HERMES_AUDIT_CHECKPOINT_MINUTES`, and posted to `HERMES_AUDIT_CHECKPOINT_CHANNEL` when set.
 */
export function startConfiguredAuditCheckpoints(s: {
  config: Config;
  logger: Logger;
  storage: Pick<Storage, "audit"> & Partial<Pick<Storage, "events">>;
  slack: Pick<SlackOutput, "client">;
}) {
  const env = s.config.env;
  const channel = env.HERMES_AUDIT_CHECKPOINT_CHANNEL;
  // With Redis there may be several workers: one checkpoint per period among them (claimed like an
  // event, `audit-checkpoint:<period>`, and kept until retention removes it).
  const events = env.REDIS_URL ? s.storage.events : undefined;
  const claimPeriod = events
    ? async (period: number) => {
        const key = `audit-checkpoint:${env.HERMES_AUDIT_CHECKPOINT_MINUTES}m:${period}`;
        const claimed = (await events.claim(key, { staleAfterMs: CLAIM_FOREVER_MS })) !== "duplicate";
        if (claimed) await events.finish(key, "done");
        return claimed;
      }
    : undefined;
  return startAuditCheckpoints({
    audit: s.storage.audit,
    file: checkpointFilePath(env),
    everyMinutes: env.HERMES_AUDIT_CHECKPOINT_MINUTES,
    post: channel
      ? async (checkpoint) => {
          await s.slack.client.chat.postMessage({ channel, text: checkpointText(checkpoint) });
        }
      : undefined,
    claimPeriod,
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
