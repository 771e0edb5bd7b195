/** When the directory lists the whole workspace again, to catch events it missed. */
export interface RelistSchedule {
  /** At least this long after the last complete list; 6 hours by default. */
  everyMs?: number;
  /**
   * Quiet hours (UTC, `from` inclusive, `to` exclusive; may wrap midnight): a re-list due outside
   * them waits for the next `from`. Absent: any hour.
   */
  offPeakUtc?: { from: number; to: number };
}

const HOUR = 3_600_000;
export const DEFAULT_RELIST_MS = 6 * HOUR;

/** Milliseconds from `now` until the next re-list, given when the last complete list landed. */
export function nextRelistDelay(now: number, schedule: RelistSchedule = {}): number {
  const due = now + (schedule.everyMs ?? DEFAULT_RELIST_MS);
  const window = schedule.offPeakUtc;
  if (!window || window.from === window.to || inWindow(new Date(due).getUTCHours(), window)) return due - now;
  const start = new Date(due);
  start.setUTCMinutes(0, 0, 0);
  while (!inWindow(start.getUTCHours(), window)) start.setTime(start.getTime() + HOUR);
  return start.getTime() - now;
}

function inWindow(hour: number, { from, to }: { from: number; to: number }): boolean {
  return from <= to ? hour >= from && hour < to : hour >= from || hour < to;
}
