/** A tool's return value as the text the model reads. */
export function serializeResult(value: unknown): string {
  if (value === undefined || value === null) return "(no output)";
  if (typeof value === "string") return value === "" ? "(empty result)" : value;
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Caps `text` at `max` characters keeping the head (about 70 %) and the tail, with a marker in the
 * middle saying how much was cut and how to read it (`ref` = the full result in the ResultStore).
 */
export function capResult(text: string, max: number, ref?: string): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  const cut0 = text.length - max;
  const marker = (cut: number) =>
    `\n…[${cut} of ${text.length} characters cut${ref ? `; full result: fetch_result ref="${ref}" offset/length` : ""}]…\n`;
  const room = Math.max(0, max - marker(cut0).length);
  const head = Math.ceil(room * 0.7);
  const tail = room - head;
  const cut = text.length - head - tail;
  return { text: text.slice(0, head) + marker(cut) + (tail > 0 ? text.slice(text.length - tail) : ""), cut };
}
