import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { PermissionLevel } from "../../src/core/permission-levels.ts";
import { suggestedPromptsFor } from "../../src/slack/assistant/suggested-prompts.ts";
import { helpText } from "../../src/slack/commands/help-text.ts";

const REPO = join(import.meta.dirname, "..", "..");
const PUBLIC = join(REPO, "src", "sandbox", "web", "public");

/**
 * Something a newcomer is told to type, and where it is written:
 * - `task`: words for the model (a suggested prompt, an example request), run by the model's tool calls;
 * - `command`: command mode's `run <tool> …` or `help`, run as written;
 * - `slash`: a `/hermes` subcommand;
 * - `word`: a word the thread itself understands (`cancel`).
 */
export interface FrontDoorPrompt {
  kind: "task" | "command" | "slash" | "word";
  text: string;
  source: string;
  /** Who it is offered to (suggested prompts are offered by level); absent: any member. */
  level?: PermissionLevel;
}

/** Every prompt the assistant, the sandbox page, `/hermes help` and the README suggest, read from where each is written. */
export async function frontDoorPrompts(): Promise<FrontDoorPrompt[]> {
  return [
    ...assistantPrompts(),
    ...helpTextPrompts(),
    ...(await sandboxPagePrompts()),
    ...readmePrompts(readFileSync(join(REPO, "README.md"), "utf8")),
  ];
}

function assistantPrompts(): FrontDoorPrompt[] {
  const levels: PermissionLevel[] = ["viewer", "user", "admin"];
  return levels.flatMap((level) =>
    suggestedPromptsFor(level).map((p) => ({
      kind: "task" as const,
      text: p.message,
      source: `assistant suggested prompt "${p.title}" (${level})`,
      level,
    })),
  );
}

/** The backticked examples of `/hermes help`. */
function helpTextPrompts(): FrontDoorPrompt[] {
  const source = "/hermes help";
  return [...helpText().matchAll(/`([^`]+)`/g)].map(([, snippet = ""]) => classify(snippet, source));
}

/** The `/` suggestions of the page's composer (its own module) and the hint in the box of the DM with the bot. */
async function sandboxPagePrompts(): Promise<FrontDoorPrompt[]> {
  const composer: unknown = await import(pathToFileURL(join(PUBLIC, "composer.js")).href);
  const { COMMANDS } = z
    .object({ COMMANDS: z.array(z.object({ text: z.string(), hint: z.string() })) })
    .parse(composer);
  const hint = /type (\w+) to see what/.exec(readFileSync(join(PUBLIC, "app.js"), "utf8"));
  if (!hint?.[1]) throw new Error("the DM hint of src/sandbox/web/public/app.js was not found");
  return [
    ...COMMANDS.map((c) => classify(c.text, `sandbox composer suggestion "${c.hint}"`)),
    classify(hint[1], "sandbox DM hint"),
  ];
}

/** The README's example request, its command-mode block and inline commands, and the terminal example. */
export function readmePrompts(readme: string): FrontDoorPrompt[] {
  const source = "README.md";
  const intro = /DM it a task \("([^"]+)"\)/.exec(readme.replace(/\s*\n\s*/g, " "));
  if (!intro?.[1]) throw new Error('README.md: the example task (DM it a task ("…")) was not found');
  const block = /\*\*Command mode\.\*\*[\s\S]*?```\n([\s\S]*?)```/.exec(readme);
  if (!block?.[1]) throw new Error("README.md: the command-mode example block was not found");
  const blockLines = block[1]
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
  const inline = [...readme.matchAll(/`((?:run [a-z_]+ [^`]+)|help)`/g)].map((m) => m[1] ?? "");
  const terminal = [...readme.matchAll(/npm run agent -- "([^"]+)"/g)]
    .map((m) => m[1] ?? "")
    .filter((t) => t !== "task");
  return [
    { kind: "task", text: intro[1], source: `${source} (the example task)` },
    ...[...blockLines, ...inline].map((t) => classify(t, source)),
    ...terminal.map((text) => ({ kind: "task" as const, text, source: `${source} (npm run agent)` })),
  ];
}

function classify(snippet: string, source: string): FrontDoorPrompt {
  const text = snippet.trim();
  if (text.startsWith("/hermes")) return { kind: "slash", text, source };
  if (/^(run \S|help$)/.test(text)) return { kind: "command", text, source };
  const mention = /^@Hermes\s+(.+)$/.exec(text);
  if (mention?.[1]) return { kind: "task", text: mention[1], source };
  if (/^(cancel|stop|abort)$/.test(text)) return { kind: "word", text, source };
  throw new Error(`${source}: "${text}" is not a task, command, /hermes subcommand or thread word`);
}
