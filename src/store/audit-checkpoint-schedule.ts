import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { AuditLog } from "./audit.ts";
import type { AuditCheckpoint } from "./audit-checkpoint.ts";
import { appendCheckpoint } from "./audit-checkpoint-file.ts";

export interface AuditCheckpointOptions {
  audit: Pick<AuditLog, "checkpoint">;
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
 * Publishes a signed checkpoint of the audit log's head now and then every `everyMinutes`: appended
 * to `file` and, when given, posted (once per period across processes with `claimPeriod`). Nothing is
 * published while the log is empty. A failure is
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
  const publish = async (): Promise<AuditCheckpoint | null> => {
    const checkpoint = await options.audit.checkpoint();
    if (!checkpoint) return null;
    await appendCheckpoint(options.file, checkpoint);
    await options
      .post?.(checkpoint)
      .catch((err: unknown) =>
        logger.warn({ err: errorMessage(err) }, "could not post the audit checkpoint"),
      );
    logger.info({ id: checkpoint.id, file: options.file }, "audit checkpoint published");
    return checkpoint;
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
