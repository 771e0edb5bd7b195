import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Database } from "./db.ts";
import { sweepRetention } from "./retention.ts";
import { sweepStoredCalls } from "./retention-calls.ts";

/** Once an hour is plenty for a daily cutoff; the first sweep runs a minute after start-up. */
export const RETENTION_EVERY_MS = 3600_000;
const FIRST_SWEEP_MS = 60_000;

/**
 * Sweeps old rows (see `sweepRetention`, then `sweepStoredCalls`: decided approvals and finished
 * runs' snapshots) on a timer. Several replicas may sweep at once: deleting
 * an already deleted row is a no-op. `stop()` ends the timer and waits for a sweep in progress.
 */
export function startRetentionSweeps(o: {
  db: Database;
  days: number;
  /** `HERMES_RUN_RETENTION_DAYS` (runs' records); absent: `days`. */
  runDays?: number | undefined;
  logger: Logger;
  everyMs?: number;
  firstAfterMs?: number;
}) {
  const controller = new AbortController();
  let running: Promise<void> = Promise.resolve();
  const sweep = () => {
    const signal = controller.signal;
    const both = async () => ({
      ...(await sweepRetention({ db: o.db, days: o.days, runDays: o.runDays, signal })),
      ...(await sweepStoredCalls({ db: o.db, days: o.days, signal })),
    });
    running = both().then(
      (counts) => {
        if (Object.values(counts).some((n) => n > 0))
          o.logger.info({ ...counts, days: o.days }, "retention: old rows deleted");
      },
      (err: unknown) => o.logger.warn({ err: errorMessage(err) }, "retention sweep failed"),
    );
  };
  const timers: NodeJS.Timeout[] = [];
  if (o.days > 0 || (o.runDays ?? 0) > 0) {
    timers.push(setTimeout(sweep, o.firstAfterMs ?? FIRST_SWEEP_MS));
    timers.push(setInterval(sweep, o.everyMs ?? RETENTION_EVERY_MS));
    for (const t of timers) t.unref();
  }
  return {
    async stop() {
      for (const t of timers) clearTimeout(t);
      controller.abort();
      await running;
    },
  };
}
