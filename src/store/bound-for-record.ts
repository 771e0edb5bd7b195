/**
 * Characters of text kept from one step's data before redaction: beyond the longest text a record
 * keeps (`MAX_ARGS_JSON`), plus a margin, so a secret cut in half at this bound lies past what is stored.
 */
export const MAX_CHARS_BEFORE_REDACTION = 3000;
const MAX_ENTRIES = 200;
const MAX_DEPTH = 8;

/**
 * A copy of `value` small enough to redact in well under a millisecond: at most `budget` characters
 * of strings and keys in all (each string cut where the budget runs out), at most 200 entries per
 * object or array, 8 levels deep. Redaction is linear, but a model can send megabytes of arguments
 * and one record write carries many steps on the event loop; only a preview is stored anyway.
 */
export function boundForRecord(value: unknown, budget = MAX_CHARS_BEFORE_REDACTION): unknown {
  let left = budget;
  const text = (s: string): string => {
    if (s.length <= left) {
      left -= s.length;
      return s;
    }
    const cut = `${s.slice(0, Math.max(0, left))}…`;
    left = 0;
    return cut;
  };
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return text(v);
    if (v === null || typeof v !== "object") return v;
    if (depth >= MAX_DEPTH || left <= 0) return "…";
    if (Array.isArray(v)) {
      const items = v.slice(0, MAX_ENTRIES).map((x) => walk(x, depth + 1));
      if (v.length > MAX_ENTRIES) items.push(`… ${v.length - MAX_ENTRIES} more`);
      return items;
    }
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      if (n++ >= MAX_ENTRIES || left <= 0) {
        out["…"] = "more keys";
        break;
      }
      out[text(key)] = walk((v as Record<string, unknown>)[key], depth + 1);
    }
    return out;
  };
  return walk(value, 0);
}
