/**
 * Token amounts as people write them: `200000`, `200k`, `1.5m` (also `200K`, `1,000,000`, `2M`).
 * Undefined for anything else, so callers can say what is wrong in their own words.
 */
export function parseTokenAmount(text: string): number | undefined {
  const m = /^\s*(\d[\d,_]*(?:\.\d+)?)\s*([km]?)\s*$/i.exec(text);
  if (!m) return undefined;
  const digits = m[1]!.replace(/[,_]/g, "");
  const scale = m[2]!.toLowerCase() === "k" ? 1_000 : m[2]!.toLowerCase() === "m" ? 1_000_000 : 1;
  const n = Math.round(Number(digits) * scale);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
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
