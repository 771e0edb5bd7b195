import { Cron } from "croner";

export type CronCheck = { ok: true; next: Date } | { ok: false; problem: string };

/** Is `timezone` an IANA name this runtime knows? */
export function isTimeZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a cron pattern with croner (5 fields, or 6 with seconds first; `@daily` and friends) in a
 * time zone, and that it ever fires again. The problem is a sentence for the admin who typed it.
 */
export function checkCron(pattern: string, timezone = "UTC", from: Date = new Date()): CronCheck {
  if (!isTimeZone(timezone)) {
    return { ok: false, problem: `"${timezone}" is not a time zone; use an IANA name like Europe/Berlin` };
  }
  let next: Date | null;
  try {
    next = new Cron(pattern, { timezone, paused: true }).nextRun(from);
  } catch (err) {
    const reason = err instanceof Error ? err.message.replace(/^CronPattern: /, "") : String(err);
    return { ok: false, problem: `"${pattern}" is not a valid cron pattern: ${reason}` };
  }
  if (!next) return { ok: false, problem: `"${pattern}" never fires again` };
  return { ok: true, next };
}
