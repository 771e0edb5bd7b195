import { Cron } from "croner";

/**
 * A schedule's slots: the instants its cron pattern names in its time zone (whole seconds). Slot
 * arithmetic only; it arms no timer.
 */
export interface CronSlots {
  /** The latest slot strictly before `instant`. */
  before(instant: Date): Date | undefined;
  /** The latest slot at or before `instant`: the one due at `instant`. */
  atOrBefore(instant: Date): Date | undefined;
  /** The first slot strictly after `instant`. */
  after(instant: Date): Date | undefined;
  /** The first slot at or after `instant`. */
  atOrAfter(instant: Date): Date | undefined;
}

/** Throws croner's error for a pattern or time zone it refuses (`checkCron` says it in a sentence). */
export function cronSlots(pattern: string, timezone: string): CronSlots {
  // Paused and without a function: croner computes, never fires. Both calls below take an explicit
  // reference, so croner's own clock and run state play no part. `previousRuns` returns slots
  // strictly before the reference and `nextRun` the first strictly after it; slots are whole seconds,
  // so one millisecond past (or before) an instant makes either inclusive.
  const cron = new Cron(pattern, { timezone, paused: true });
  const before = (instant: Date) => cron.previousRuns(1, instant)[0];
  const after = (instant: Date) => cron.nextRun(instant) ?? undefined;
  return {
    before,
    atOrBefore: (instant) => before(new Date(instant.getTime() + 1)),
    after,
    atOrAfter: (instant) => after(new Date(instant.getTime() - 1)),
  };
}
