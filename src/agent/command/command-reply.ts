import { closeMatches } from "../../tools/references/close-matches.ts";
import type { ToolSpec } from "../model/chat-model.ts";
import {
  ARGS_CHANGED_RESULT,
  AUDIT_UNAVAILABLE_RESULT,
  EXPIRED_RESULT,
  INTERRUPTED_RESULT,
  TOOL_CHANGED_RESULT,
} from "../run/stop-messages.ts";
import { resultSentence } from "./result-sentences/result-sentence.ts";

/**
 * Command mode's answer to a person: a tool's result in sentences (`result-sentences/`), and a refusal
 * or an error as one plain sentence saying what happened and what to do, instead of the text written
 * for a model ("Fix these fields and call … again", "Do not try to reach the same effect another
 * way"). `content` is the tool message the runtime produced; `spec` (when the tool is known) gives a
 * `Try:` line.
 */
export function commandReply(tool: string, content: string, spec?: ToolSpec): string {
  const name = `\`${tool}\``;
  const invalid = /^Invalid arguments for [^\n]*:\n([\s\S]*?)\nFix these fields and call /.exec(content);
  if (invalid) return withTry(invalidSentence(name, invalid[1] ?? ""), spec);
  if (/^The arguments for \S+ (are not valid JSON|must be one JSON object)/.test(content)) {
    return withTry(`I could not read the arguments for ${name}: write them as key=value pairs.`, spec);
  }
  const unknownTool = /^There is no tool named "([^"]*)"\.[\s\S]*The tools you can call are: (.*)\.$/.exec(
    content,
  );
  if (unknownTool) {
    const written = unknownTool[1] ?? "";
    const tools = (unknownTool[2] ?? "").split(", ").filter((t) => t && t !== "(none)");
    const near = closeMatches(
      written,
      tools.map((t) => ({ key: t, item: `\`${t}\`` })),
    );
    const guess = near.length ? ` Did you mean ${near.join(" or ")}?` : "";
    return `There is no tool called \`${written}\`.${guess} Send \`help\` for the tools you may use.`;
  }
  const denied = /^Not run: permission denied \(([\s\S]*)\)\. Do not try to reach/.exec(content);
  if (denied) return deniedSentence(name, denied[1] ?? "");
  const rejected = /^Not run: (.+?) rejected this call\./.exec(content);
  if (rejected) return `${name} was not run: ${rejected[1]} rejected it.`;
  if (content === EXPIRED_RESULT)
    return `${name} was not run: nobody decided on it before the approval expired. Ask again if it is still needed.`;
  if (content === AUDIT_UNAVAILABLE_RESULT)
    return `${name} was not run: the audit log is unavailable, so nothing runs until it is back. Try again in a few minutes.`;
  if (content === ARGS_CHANGED_RESULT || content === TOOL_CHANGED_RESULT)
    return `${name} was not run: it changed after it was approved, so the approval no longer applies. Ask again.`;
  if (content === INTERRUPTED_RESULT)
    return `${name} was interrupted by a restart and may or may not have taken effect. Check before running it again.`;
  const failed = /^Error from \S+: ([\s\S]*)$/.exec(content);
  if (failed) return `${name} failed: ${failed[1]}`;
  const unrun = /^Not run: ([\s\S]*)$/.exec(content);
  if (unrun) return `${name} was not run: ${unrun[1]}`;
  return resultSentence(tool, content);
}

/** `- text: Invalid input: expected string, received undefined (required field is missing)` lines. */
function invalidSentence(name: string, lines: string): string {
  const missing: string[] = [];
  const wrong: string[] = [];
  for (const line of lines.split("\n")) {
    const m = /^- ([^:]+): ([\s\S]*)$/.exec(line.trim());
    if (!m) continue;
    const field = m[1]!;
    if (m[2]!.endsWith("(required field is missing)")) missing.push(`\`${field}\``);
    else wrong.push(field === "(arguments)" ? m[2]! : `\`${field}\` ${plainIssue(m[2]!)}`);
  }
  const parts: string[] = [];
  if (missing.length) parts.push(`${name} needs ${missing.length === 1 ? "a " : ""}${andList(missing)}.`);
  if (wrong.length) parts.push(`${missing.length ? "Also, " : `For ${name}, `}${andList(wrong)}.`);
  return parts.join(" ") || `${name} cannot run with those arguments.`;
}

/** zod's words, made plain: "Invalid option: expected one of "a"|"b"" → "must be one of a, b". */
function plainIssue(issue: string): string {
  const options = /expected one of (.+)$/.exec(issue);
  if (options) return `must be one of ${options[1]!.replaceAll('"', "").split("|").join(", ")}`;
  const big = /Too big: expected \w+ to have <=?(\d+) (\w+)/.exec(issue);
  if (big) return `is too long (at most ${big[1]} ${big[2]})`;
  const small = /Too small: expected \w+ to have >=?(\d+) (\w+)/.exec(issue);
  if (small) return `is too short (at least ${small[1]} ${small[2]})`;
  return `is not valid (${issue.replace(/^Invalid input: /, "")})`;
}

function deniedSentence(name: string, reason: string): string {
  const what = `${name} was not run: ${reason}.`;
  if (/is not a member of/.test(reason))
    return `${what} Join that channel first, or send it to a channel you are in.`;
  if (/needs level|blocked for this user|not on this user's list|not available to this user/.test(reason)) {
    return `${what} Ask an admin if you need it.`;
  }
  return what;
}

/** "Try: run send_message to=#general text=hello", from the tool's first example that has every required field. */
export function withTry(sentence: string, spec: ToolSpec | undefined): string {
  const example = spec && exampleCommand(spec);
  return example ? `${sentence}\nTry: \`${example}\`` : sentence;
}

function exampleCommand(spec: ToolSpec): string | undefined {
  const required = (spec.parameters.required as string[] | undefined) ?? [];
  const listed = /\nExamples: (.+)$/.exec(spec.description)?.[1]?.split(" ; ") ?? [];
  for (const text of listed) {
    let example: unknown;
    try {
      example = JSON.parse(text);
    } catch {
      continue;
    }
    if (!example || typeof example !== "object") continue;
    const args = example as Record<string, unknown>;
    if (!required.every((k) => k in args)) continue;
    const pairs = Object.entries(args).map(([k, v]) => `${k}=${keyValue(v)}`);
    return `run ${spec.name}${pairs.length ? ` ${pairs.join(" ")}` : ""}`;
  }
  if (!required.length) return undefined;
  return `run ${spec.name} ${required.map((k) => `${k}=…`).join(" ")}`;
}

function keyValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return /^[^\s"'=]+$/.test(text) ? text : `"${text.replaceAll('"', '\\"')}"`;
}

function andList(items: string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
