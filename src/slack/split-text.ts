/**
 * Splits text into pieces of at most `max` characters, preferring paragraph, then line, then word
 * boundaries, and never cutting inside a ``` code block without closing and reopening it.
 */
export function splitText(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  let reopenFence = false;
  while (rest.length > 0) {
    const prefix = reopenFence ? "```\n" : "";
    const room = max - prefix.length;
    if (rest.length <= room) {
      out.push(prefix + rest);
      break;
    }
    const window = rest.slice(0, room - 4); // leave room to close a fence
    let cut = Math.max(window.lastIndexOf("\n\n"), -1);
    if (cut < room * 0.5) cut = window.lastIndexOf("\n");
    if (cut < room * 0.5) cut = window.lastIndexOf(" ");
    if (cut < room * 0.5) cut = window.length;
    let piece = rest.slice(0, cut);
    rest = rest.slice(cut).replace(/^\s+/, "");
    const fences: number = (piece.match(/```/g) ?? []).length + (reopenFence ? 1 : 0);
    const open: boolean = fences % 2 === 1;
    piece = prefix + piece + (open ? "\n```" : "");
    reopenFence = open;
    out.push(piece);
  }
  return out.filter((p) => p.trim().length > 0);
}
