import { HermesError } from "../core/errors.ts";

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const RELATIVE = /^(\d+)\s*([smhdw])$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A time bound as people type it in `--since` / `/hermes audit since:`: a duration back from `now`
 * (`30m`, `24h`, `7d`, `2w`, `90s`) or an ISO date / date-time (`2025-03-01`, `2025-03-01T09:00Z`).
 * A date or date-time without an offset is read as UTC, so the answer does not depend on the server.
 */
export function parseTimeBound(input: string, now: Date = new Date()): Date {
  const text = input.trim();
  const relative = RELATIVE.exec(text);
  if (relative) {
    const unit = relative[2]?.toLowerCase() as keyof typeof UNIT_MS;
    return new Date(now.getTime() - Number(relative[1]) * UNIT_MS[unit]);
  }
  if (ISO_DATE.test(text)) {
    const hasZone = /[T ].*(Z|[+-]\d{2}:?\d{2})$/i.test(text);
    const date = new Date(hasZone ? text : `${text.length === 10 ? `${text}T00:00` : text}Z`);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new HermesError(
    "bad_request",
    `"${input}" is not a time: use a duration like 30m, 24h or 7d, or a date like 2025-03-01 or 2025-03-01T09:00Z.`,
  );
}
