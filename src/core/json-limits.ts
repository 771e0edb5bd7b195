/**
 * Bounds on what the runtime will parse from a model. Every check here is one linear pass with no
 * recursion, so a hostile or degenerate string costs microseconds per kilobyte, never seconds.
 */

/** Longest argument text a call may carry; tool arguments are small records, not documents. */
export const MAX_ARGUMENT_CHARS = 256 * 1024;

/** Why argument text of `length` characters is refused (the same words wherever the size is checked). */
export function tooLongError(length: number): string {
  return `the arguments are ${length} characters long; at most ${MAX_ARGUMENT_CHARS} are accepted`;
}

/** Deepest nesting of arrays/objects accepted: far above any tool schema, far below the stack's limit. */
export const MAX_JSON_DEPTH = 64;

/**
 * The deepest `[`/`{` nesting in JSON-like text, outside of quoted strings (double or single quotes,
 * since models write both), stopping as soon as `limit` is passed.
 */
export function textNestingDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let quote = 0; // char code of the open quote, 0 outside strings
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === 92 /* \ */) i++;
      else if (c === quote) quote = 0;
      continue;
    }
    if (c === 34 /* " */ || c === 39 /* ' */) quote = c;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if ((c === 93 /* ] */ || c === 125) /* } */ && depth > 0) depth--;
  }
  return max;
}

/** True when a parsed value nests deeper than `limit` (checked with an explicit stack, not recursion). */
export function valueTooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  const stack: Array<{ v: object; d: number }> = [{ v: value, d: 1 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (d > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) {
      if (child !== null && typeof child === "object") stack.push({ v: child, d: d + 1 });
    }
  }
  return false;
}

/** A short, safe stand-in for argument text that cannot be kept as a value (too long, too deep). */
export function argumentPreview(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
