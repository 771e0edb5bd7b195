import { HermesError } from "../../core/errors.ts";

const PERIOD = /^(\d{1,4})([hdw])$/;
const HOUR_MS = 3_600_000;
const UNIT = {
  h: { hours: 1, word: "hour" },
  d: { hours: 24, word: "day" },
  w: { hours: 168, word: "week" },
};
/** A year and a day: enough for any team report, small enough to chart by day. */
export const MAX_PERIOD_HOURS = 366 * 24;

export interface ReportPeriod {
  /** As given, e.g. `7d`. */
  text: string;
  /** For sentences: "7 days", "24 hours", "1 week". */
  label: string;
  ms: number;
}

/** `24h`, `7d`, `4w` → a span; anything else (or zero, or over a year) is a sentence for the model. */
export function parsePeriod(text: string): ReportPeriod {
  const m = PERIOD.exec(text.trim().toLowerCase());
  const n = m ? Number(m[1]) : 0;
  const unit = m ? UNIT[m[2] as keyof typeof UNIT] : undefined;
  if (!unit || n < 1 || n * unit.hours > MAX_PERIOD_HOURS) {
    throw new HermesError(
      "bad_request",
      `Period "${text}" is not valid: use a number and h, d or w (e.g. 24h, 7d, 30d, 90d), at most 366 days.`,
    );
  }
  return {
    text: `${n}${m![2]}`,
    label: `${n} ${unit.word}${n === 1 ? "" : "s"}`,
    ms: n * unit.hours * HOUR_MS,
  };
}
