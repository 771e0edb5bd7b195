/** A tool's return value as the text the model reads. */
export function serializeResult(value: unknown): string {
  if (value === undefined || value === null) return "(no output)";
  if (typeof value === "string") return value === "" ? "(empty result)" : value;
  try {
    // Without a replacer first: a replacer is called for every key, and only a bigint (which plain
    // `JSON.stringify` refuses with a TypeError) needs one.
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value);
    } catch {
      return String(value);
    }
  }
}

/**
 * Caps `text` at `max` characters keeping the head (about 70 %) and the tail, with a marker in the
 * middle saying how much was cut and how to read it (`ref` = the full result in the ResultStore).
 */
export function capResult(text: string, max: number, ref?: string): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  const marker = (n: number) =>
    `\n…[${n} of ${text.length} characters cut${ref ? `; full result: fetch_result ref="${ref}" offset/length` : ""}]…\n`;
  // The marker's own length depends on the number it prints: settle it in a few rounds.
  let cut = text.length - max;
  let head = 0;
  let tail = 0;
  for (let i = 0; i < 3; i++) {
    const room = Math.max(0, max - marker(cut).length);
    head = Math.ceil(room * 0.7);
    tail = room - head;
    cut = text.length - head - tail;
  }
  return { text: text.slice(0, head) + marker(cut) + (tail > 0 ? text.slice(text.length - tail) : ""), cut };
}
