import { bareToolName, toolNameKey } from "../../../tools/tool-names.ts";
import { isRecord, scanJsonValue } from "./json-calls.ts";
import { parseJsonWithin, type RepairBudget } from "./repair-budget.ts";
import { fitsSchema } from "./schema-fit.ts";
import type { ParsedCall, ToolFormatContext } from "./types.ts";
import { MAX_TEXT_CALLS } from "./types.ts";

/*
 * The calls the schema-guided reader finds, before and after they are checked against the tools:
 * JSON call objects in the shapes servers and models write, and the rule that keeps one (an offered
 * name, arguments that fit its JSON Schema, a wrapper taken off only when the inner object fits).
 */

/** Keys servers and models wrap arguments in: taken off when the inner object fits and the outer does not. */
const WRAPPER_KEYS = new Set(["arguments", "parameters", "args", "input", "params", "kwargs", "function"]);
const NAME_KEYS = ["name", "tool_name", "function_name", "tool", "action", "recipient_name"] as const;
const ARGUMENT_KEYS = [
  "arguments",
  "parameters",
  "args",
  "input",
  "params",
  "action_input",
  "tool_input",
  "tool_args",
  "tool_arguments",
  "function_arguments",
  "function_parameters",
  "kwargs",
] as const;

/** The name of a call cut off before its JSON closed, under any of the name keys. */
const CUT_NAME = new RegExp(`"(?:${NAME_KEYS.join("|")})"\\s*:\\s*"([^"]{1,128})"`);

/** One call as read at a site, before its name and arguments are checked against the tools. */
export interface Candidate {
  name: string;
  arguments: unknown;
  complete: boolean;
}

/** A candidate as a call: its name offered, its arguments fitting the schema (unwrapped if need be). */
export function accept(c: Candidate, ctx: ToolFormatContext): ParsedCall | undefined {
  if (!ctx.isToolName(c.name)) return undefined;
  // A call cut off mid-arguments is never executed: it is kept only to know the model meant a call.
  if (!c.complete)
    return { name: c.name, arguments: isRecord(c.arguments) ? c.arguments : {}, complete: false };
  const schema = ctx.schemaOf(c.name);
  if (echoesSchema(c.arguments, schema)) return undefined;
  const args = fittingArguments(c.arguments, schema, c.name);
  return args && { name: c.name, arguments: args, complete: true };
}

/**
 * Arguments that are a JSON Schema (`{"type": "object", "properties": {…}}`): the tool's definition
 * repeated back (the tool list of the prompt), not a call, unless the tool itself takes such keys.
 */
function echoesSchema(args: unknown, schema: unknown): boolean {
  if (!isRecord(args) || args.type !== "object" || !isRecord(args.properties)) return false;
  const declared = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  return !Object.hasOwn(declared, "properties");
}

/**
 * The arguments when they fit the schema, or, when they do not, the object a wrapper holds if that
 * fits: a single wrapper key (`{"arguments": {…}}`, `{"parameters": {…}}`, `{"function": {…}}`) or
 * the whole call envelope repeated inside (`{"name": "x", "arguments": {…}}`, for the same tool).
 */
export function fittingArguments(
  args: unknown,
  schema: unknown,
  name?: string,
): Record<string, unknown> | undefined {
  if (isRecord(args) && fitsSchema(args, schema)) return args;
  if (!isRecord(args)) return undefined;
  const keys = Object.keys(args);
  let inner: unknown;
  if (keys.length === 1 && WRAPPER_KEYS.has(keys[0]!)) {
    inner = args[keys[0]!];
    if (keys[0] === "function" && isRecord(inner)) inner = inner.arguments ?? inner.parameters;
  } else if (keys.length === 2 && name !== undefined && sameTool(args.name, name)) {
    inner = args.arguments ?? args.parameters;
  }
  return isRecord(inner) && fitsSchema(inner, schema) ? inner : undefined;
}

function sameTool(written: unknown, name: string): boolean {
  return (
    typeof written === "string" && toolNameKey(bareToolName(written)) === toolNameKey(bareToolName(name))
  );
}

/** JSON call objects at `p` (one, or a list), in any of the shapes servers and models write. */
export function readJsonCalls(
  text: string,
  p: number,
  ctx: ToolFormatContext,
  budget: RepairBudget,
): { calls: Candidate[]; end: number } | undefined {
  const scan = scanJsonValue(text, p);
  if (!scan.complete) {
    // Cut off: a call only if its name can be read; never executed.
    const name = CUT_NAME.exec(text.slice(p, p + 512))?.[1];
    return name && ctx.isToolName(name)
      ? { calls: [{ name, arguments: {}, complete: false }], end: scan.end }
      : undefined;
  }
  const parsed = parseJsonWithin(text.slice(p, scan.end), budget);
  if (!parsed.ok) return { calls: [], end: scan.end };
  const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  if (items.length === 0 || items.length > MAX_TEXT_CALLS) return { calls: [], end: scan.end };
  const calls: Candidate[] = [];
  for (const item of items) {
    const call = callOfObject(item, ctx, budget);
    if (!call) return { calls: [], end: scan.end };
    calls.push(call);
  }
  return { calls, end: scan.end };
}

/** `{name|tool_name|…, arguments|parameters|…}`, `{function: {…}}`, or Apertus' `{"tool": {…}}`. */
function callOfObject(item: unknown, ctx: ToolFormatContext, budget: RepairBudget): Candidate | undefined {
  if (!isRecord(item)) return undefined;
  const fn = isRecord(item.function) ? item.function : item;
  let name: unknown = NAME_KEYS.map((k) => fn[k]).find((v) => typeof v === "string");
  if (name === undefined && typeof item.function === "string") name = item.function;
  if (typeof name === "string") {
    const key = ARGUMENT_KEYS.find((k) => k in fn);
    const raw = key === undefined ? {} : fn[key];
    const args = typeof raw === "string" ? parseString(raw, budget) : raw;
    return { name: name.trim(), arguments: args, complete: true };
  }
  const keys = Object.keys(item);
  if (keys.length === 1 && ctx.isToolName(keys[0]!) && isRecord(item[keys[0]!])) {
    return { name: keys[0]!, arguments: item[keys[0]!], complete: true };
  }
  return undefined;
}

/** A JSON string that itself holds the arguments (`"arguments": "{\"k\": 1}"`), parsed when it does. */
export function parseString(raw: string, budget: RepairBudget): unknown {
  const t = raw.trim();
  if (!t.startsWith("{")) return raw;
  const parsed = parseJsonWithin(t, budget);
  return parsed.ok ? parsed.value : raw;
}
