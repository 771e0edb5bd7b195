import { type ApproversRule, isPermissionLevel, LEVELS } from "../../core/permission-levels.ts";
import { defineTool, type Tool } from "../define-tool.ts";

const APPROVAL = ["never", "always"];
const APPROVERS: readonly ApproversRule[] = ["requester_or_admin", "admin", "not_requester"];
const NAME = /^[a-z][a-z0-9_]{0,63}$/;

export type ToolCheck = { ok: true; tool: Tool } | { ok: false; problem: string };

/**
 * Does this export look like a tool at all? Modules may export helpers and constants beside their
 * tools; only objects with a tool's own fields are checked (and then must be valid).
 */
export function looksLikeTool(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return "execute" in v || "input" in v || ("name" in v && "description" in v);
}

/**
 * Checks a tool-shaped value field by field, as `defineTool` would have produced it, and returns it
 * with defaults filled in. Only duck typing: a module may bring its own copy of zod, so `instanceof`
 * would reject valid schemas.
 */
export function checkTool(value: Record<string, unknown>): ToolCheck {
  const label = typeof value.name === "string" ? `tool "${value.name}"` : "a tool";
  const fail = (problem: string): ToolCheck => ({ ok: false, problem: `${label}: ${problem}` });

  if (typeof value.name !== "string" || !NAME.test(value.name)) {
    return fail("name must be snake_case: lowercase letters, digits and _, at most 64 characters");
  }
  if (typeof value.description !== "string" || value.description.trim() === "") {
    return fail("description must be a non-empty string (the model chooses tools by it)");
  }
  if (!isZodObject(value.input)) return fail("input must be a zod object schema: z.object({...})");
  if (typeof value.execute !== "function") return fail("execute must be a function");
  if (value.level !== undefined && !isPermissionLevel(value.level)) {
    return fail(`level must be one of ${LEVELS.join(", ")}`);
  }
  if (
    value.approval !== undefined &&
    typeof value.approval !== "function" &&
    !APPROVAL.includes(value.approval as string)
  ) {
    return fail('approval must be "never", "always" or a function of the arguments');
  }
  if (value.approvers !== undefined && !APPROVERS.includes(value.approvers as ApproversRule)) {
    return fail(`approvers must be one of ${APPROVERS.join(", ")}`);
  }
  for (const [key, min] of [
    ["timeoutMs", 1],
    ["maxResultChars", 1],
    ["concurrency", 1],
    ["retries", 0],
  ] as const) {
    const n = value[key];
    if (n !== undefined && (typeof n !== "number" || !Number.isInteger(n) || n < min)) {
      return fail(`${key} must be a whole number of at least ${min}`);
    }
  }
  // defineTool fills the defaults; applying it to an already defined tool changes nothing.
  return { ok: true, tool: defineTool(value as unknown as Parameters<typeof defineTool>[0]) as Tool };
}

function isZodObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { safeParse?: unknown; _zod?: { def?: { type?: unknown } } };
  return typeof v.safeParse === "function" && v._zod?.def?.type === "object";
}
