import { createHash } from "node:crypto";

/** Deterministic JSON: object keys sorted, no whitespace. Two equal values give one string. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** The hash an approval is bound to: tool name + canonical arguments. */
export const argsSha256 = (tool: string, args: unknown) => sha256Hex(`${tool}\n${canonicalJson(args)}`);
