import { invalidArguments, SlackApiError } from "./api-error.ts";

/**
 * Arguments of one Web API call. Form-encoded calls (what `@slack/web-api` sends) carry every value as
 * a string, with objects and arrays JSON-encoded; JSON calls carry real values. These readers accept both.
 */
export type ApiArgs = Record<string, unknown>;

export function stringArg(args: ApiArgs, name: string): string | undefined {
  const value = args[name];
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** A required string; missing or empty → `error` (Slack's per-method code, e.g. `channel_not_found`). */
export function requiredString(args: ApiArgs, name: string, error?: string): string {
  const value = stringArg(args, name);
  if (value !== undefined && value !== "") return value;
  throw error ? new SlackApiError(error) : invalidArguments([`missing required field: ${name}`]);
}

export function booleanArg(args: ApiArgs, name: string): boolean | undefined {
  const value = args[name];
  if (value === undefined || value === null || value === "") return undefined;
  return value === true || value === 1 || value === "true" || value === "1";
}

export function integerArg(args: ApiArgs, name: string): number | undefined {
  const value = stringArg(args, name);
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw invalidArguments([`must be an integer [json-pointer:/${name}]`]);
  return n;
}

/** A structured argument: parsed from its JSON string when form-encoded; `error` when it is not JSON. */
export function jsonArg(args: ApiArgs, name: string, error: string): unknown {
  const value = args[name];
  if (typeof value !== "string") return value;
  if (value === "") return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new SlackApiError(error);
  }
}
