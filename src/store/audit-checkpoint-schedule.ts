import { errorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";
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
  logger: Logger;
}

/**
 * Publishes a signed checkpoint of the audit log's head now and then every `everyMinutes`: appended
 * to `file` and, when given, posted. Nothing is published while the log is empty. A failure is
 * logged as an error and retried at the next tick; it never stops Hermes.
 */
export async function startAuditCheckpoints(options: AuditCheckpointOptions) {
  const { logger } = options;
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
  await publish().catch((err: unknown) =>
    logger.error({ err: errorMessage(err), file: options.file }, "could not publish an audit checkpoint"),
  );
  let running: Promise<unknown> = Promise.resolve();
  const timer =
    options.everyMinutes > 0
      ? setInterval(() => {
          running = publish().catch((err: unknown) =>
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
