/**
 * Token amounts as people write them, read only when they mean one whole number of tokens:
 * - a count: `200000`, or grouped by threes with underscores: `200_000`, `1_500_000`;
 * - `k` (thousand) or `m` (million), any case, with a decimal point if the result is whole:
 *   `200k`, `1m`, `1.5m`, `0.5k`.
 * Refused, each with its own reason: a comma (`1,5m`, `1,500`: a decimal comma or a thousands
 * separator?), a fraction of a token (`0.4`, `1.2345k`), a sign (`-5`), scientific notation (`1e6`),
 * anything else. Whether 0 is allowed is the caller's to say (a budget's 0 means no limit).
 */
export type TokenAmount = { ok: true; tokens: number } | { ok: false; problem?: string };

/** The forms, for sentences: "such as …". */
export const TOKEN_AMOUNT_FORMS = "200000, 200_000, 200k or 1.5m";

const COUNT = /^\d+$/;
const GROUPED = /^\d{1,3}(?:_\d{3})+$/;
const SCALED = /^(\d+)(?:\.(\d+))?([km])$/i;
const SCALE_DIGITS = { k: 3, m: 6 } as const;

export function readTokenAmount(written: string): TokenAmount {
  const text = written.trim();
  if (COUNT.test(text) || GROUPED.test(text)) return whole(Number(text.replace(/_/g, "")));
  const scaled = SCALED.exec(text);
  if (scaled) {
    const [, int = "", fraction = "", unit = ""] = scaled;
    const digits = SCALE_DIGITS[unit.toLowerCase() as "k" | "m"];
    const kept = fraction.padEnd(digits, "0");
    // `1.2345k` is 1234.5 tokens: the digits past the unit's places must all be 0.
    if (/[1-9]/.test(kept.slice(digits)))
      return refused(
        `it is not a whole number of tokens: use at most ${digits} decimals with ${unit}, e.g. 1.5${unit}`,
      );
    return whole(Number(int + kept.slice(0, digits)));
  }
  return refused(reason(text));
}

/** The amount, or undefined when it is not one (callers that word their own sentence). */
export function parseTokenAmount(written: string): number | undefined {
  const read = readTokenAmount(written);
  return read.ok ? read.tokens : undefined;
}

function whole(n: number): TokenAmount {
  return Number.isSafeInteger(n) ? { ok: true, tokens: n } : refused("it is too large to count, e.g. 1000m");
}

const refused = (problem: string | undefined): TokenAmount =>
  problem === undefined ? { ok: false } : { ok: false, problem };

/** Why a written amount that matched no form is refused, when it looks like one; else undefined. */
function reason(text: string): string | undefined {
  if (/^[+-]/.test(text)) return "a token amount has no sign: write 0 or more, e.g. 200k";
  if (/^[\d.,_]+[km]?$/i.test(text) && text.includes(","))
    return "a comma could be a decimal point or a thousands separator: write 1.5m, 1500000 or 1_500_000";
  if (/^\d+(?:\.\d+)?e[+-]?\d+$/i.test(text)) return "write 1m or 1000000 instead of scientific notation";
  if (/^\d+\.\d+$/.test(text))
    return "it is not a whole number of tokens: write a whole count, e.g. 400000, 400k or 0.4m";
  if (/^[\d_]+$/.test(text)) return "underscores group digits by three, e.g. 200_000";
  return undefined;
}

/** `200000` → `200,000`: how amounts are shown to people. */
export function formatTokens(n: number): string {
  return n.toLocaleString("en-US");
}

/** `200000` → `200k`, `1500000` → `1.5m`: the short form a command takes. */
export function shortTokens(n: number): string {
  if (n >= 1_000_000 && n % 100_000 === 0) return `${n / 1_000_000}m`;
  if (n >= 1_000 && n % 100 === 0) return `${n / 1_000}k`;
  return String(n);
}
