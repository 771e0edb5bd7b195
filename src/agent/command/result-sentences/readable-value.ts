import { slackRef } from "./slack-refs.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** How many items of a list, and how long a text, are shown before the rest is summarised. */
const MAX_ITEMS = 10;
const MAX_TEXT = 300;

/** "1 ticket", "3 tickets". */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A title in quotes as people write it: 'VPN outage'. */
export const quoted = (text: string): string => `'${text}'`;

/** `created_by` → "Created by", `ts` → "Ts". */
export const keyWords = (key: string): string => {
  const words = key
    .replace(/[_-]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : key;
};

/**
 * Any tool result as lines a person reads: an object's keys as words (`created_by` → "Created by"),
 * a list as bullets (the first ten, then how many more), a value nested deeper summarised ("3 items",
 * "4 fields"), ids as Slack references, long text cut. Never a JSON dump.
 */
export function readableValue(value: Json): string {
  if (value === null || typeof value !== "object") return scalar(value);
  if (Array.isArray(value)) return value.length ? listLines(value).join("\n") : "Nothing.";
  const entries = Object.entries(value);
  if (!entries.length) return "Nothing.";
  return entries.map(([k, v]) => `${keyWords(k)}: ${inline(v)}`).join("\n");
}

function listLines(items: Json[]): string[] {
  const lines = items.slice(0, MAX_ITEMS).map((item) => `• ${inline(item)}`);
  if (items.length > MAX_ITEMS) lines.push(`…and ${items.length - MAX_ITEMS} more`);
  return lines;
}

/** A value on one line: scalars as they read, a flat object as `key words: value` pairs, deeper ones summarised. */
function inline(value: Json, depth = 0): string {
  if (value === null || typeof value !== "object") return scalar(value);
  if (Array.isArray(value)) {
    if (!value.length) return "none";
    if (depth > 0 || value.some((v) => v !== null && typeof v === "object"))
      return plural(value.length, "item");
    const shown = value.slice(0, MAX_ITEMS).map((v) => scalar(v));
    return value.length > MAX_ITEMS
      ? `${shown.join(", ")} and ${value.length - MAX_ITEMS} more`
      : shown.join(", ");
  }
  const entries = Object.entries(value);
  if (!entries.length) return "none";
  if (depth > 0) return plural(entries.length, "field");
  return entries.map(([k, v]) => `${keyWords(k).toLowerCase()} ${inline(v, depth + 1)}`).join(", ");
}

function scalar(value: Json): string {
  if (value === null) return "none";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") return "";
  const text = value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  return slackRef(text);
}
