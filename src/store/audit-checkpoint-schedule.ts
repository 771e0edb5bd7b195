import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { AuditLog } from "./audit.ts";
import type { AuditCheckpoint } from "./audit-checkpoint.ts";
import { appendCheckpoint } from "./audit-checkpoint-file.ts";

export interface AuditCheckpointOptions {
  audit: Pick<AuditLog, "checkpoints">;
  /** The JSONL file checkpoints are appended to. */
  file: string;
  /** Minutes between checkpoints; 0 = only the one at start. */
  everyMinutes: number;
  /** Also publish elsewhere (an admin channel); a failure there is logged, the file still has it. */
  post?: ((checkpoint: AuditCheckpoint) => Promise<void>) | undefined;
  /**
   * With several processes: claims the period (`floor(now / every)`) once across all of them; only
   * the claimant publishes, so each period has one checkpoint, not one per process. Absent: every
   * tick publishes.
   */
  claimPeriod?: ((period: number) => Promise<boolean>) | undefined;
  now?: () => number;
  logger: Logger;
}

/**
 * Publishes a signed checkpoint of each chain's head (one chain per team, `audit-chains.ts`) now and
 * then every `everyMinutes`: appended to `file` and, when given, posted (once per period across
 * processes with `claimPeriod`). A chain whose head this process already published is skipped, and
 * nothing is published while the log is empty. `publish` returns the newest checkpoint it published.
 * A failure is
 * logged as an error and retried at the next tick; it never stops Hermes.
 */
export async function startAuditCheckpoints(options: AuditCheckpointOptions) {
  const { logger } = options;
  const now = options.now ?? Date.now;
  const publishOnce = async (): Promise<AuditCheckpoint | null> => {
    const { claimPeriod, everyMinutes } = options;
    if (claimPeriod && everyMinutes > 0) {
      const period = Math.floor(now() / (everyMinutes * 60_000));
      if (!(await claimPeriod(period))) {
        logger.debug({ period }, "audit checkpoint of this period published by another process");
        return null;
      }
    }
    return publish();
  };
  const published = new Map<string, string>();
  const publish = async (): Promise<AuditCheckpoint | null> => {
    let newest: AuditCheckpoint | null = null;
    for (const checkpoint of await options.audit.checkpoints()) {
      const chain = checkpoint.team ?? "";
      if (published.get(chain) === checkpoint.hash) continue;
      await appendCheckpoint(options.file, checkpoint);
      published.set(chain, checkpoint.hash);
      await options
        .post?.(checkpoint)
        .catch((err: unknown) =>
          logger.warn({ err: errorMessage(err) }, "could not post the audit checkpoint"),
        );
      logger.info({ id: checkpoint.id, team: chain, file: options.file }, "audit checkpoint published");
      if (!newest || checkpoint.id > newest.id) newest = checkpoint;
    }
    return newest;
  };
  await publishOnce().catch((err: unknown) =>
    logger.error({ err: errorMessage(err), file: options.file }, "could not publish an audit checkpoint"),
  );
  let running: Promise<unknown> = Promise.resolve();
  const timer =
    options.everyMinutes > 0
      ? setInterval(() => {
          running = publishOnce().catch((err: unknown) =>
            logger.error(
              { err: errorMessage(err), file: options.file },
              "could not publish an audit checkpoint",
            ),
          );
        }, options.everyMinutes * 60_000)
      : undefined;
  timer?.unref();
  return {
    publish,
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
