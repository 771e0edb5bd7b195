import { isDeepStrictEqual } from "node:util";
import type { ArgMatcher } from "./scenario-schema.ts";

const show = (v: unknown) => (v === undefined ? "nothing" : JSON.stringify(v));

/** Why `value` does not satisfy `matcher`, or undefined when it does. */
export function argMismatch(matcher: ArgMatcher, value: unknown): string | undefined {
  if (matcher !== null && typeof matcher === "object") {
    if ("absent" in matcher) return value === undefined ? undefined : `expected no value, got ${show(value)}`;
    if ("regex" in matcher) {
      if (value === undefined) return `expected text matching /${matcher.regex}/, got nothing`;
      const text = typeof value === "string" ? value : JSON.stringify(value);
      return new RegExp(matcher.regex, matcher.flags).test(text)
        ? undefined
        : `expected text matching /${matcher.regex}/${matcher.flags ?? ""}, got ${show(value)}`;
    }
    if ("one_of" in matcher)
      return matcher.one_of.some((o) => isDeepStrictEqual(o, value))
        ? undefined
        : `expected one of ${show(matcher.one_of)}, got ${show(value)}`;
    return isDeepStrictEqual(matcher.exact, value)
      ? undefined
      : `expected ${show(matcher.exact)}, got ${show(value)}`;
  }
  return isDeepStrictEqual(matcher, value) ? undefined : `expected ${show(matcher)}, got ${show(value)}`;
}

/** Every argument that does not match, as `name: why` (empty when the call matches). */
export function argsMismatches(matchers: Record<string, ArgMatcher> | undefined, args: unknown): string[] {
  const given =
    args && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const out: string[] = [];
  for (const [name, matcher] of Object.entries(matchers ?? {})) {
    const why = argMismatch(matcher, given[name]);
    if (why) out.push(`${name}: ${why}`);
  }
  return out;
}
