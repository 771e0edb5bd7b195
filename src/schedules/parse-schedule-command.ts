import { checkCron, isTimeZone } from "./check-cron.ts";

export type ScheduleCommand =
  | { kind: "add"; cron: string; timezone: string; channelId: string; prompt: string }
  | { kind: "list" }
  | { kind: "remove"; id: number }
  | { kind: "help"; text: string };

export type ParsedScheduleCommand = { ok: true; command: ScheduleCommand } | { ok: false; error: string };

/** The channel as written → its id, or a sentence saying why it is not one. */
export type ChannelResolver = (
  written: string,
) => Promise<{ ok: true; id: string } | { ok: false; error: string }>;

export interface ParseScheduleCommandOptions {
  /**
   * The channel as written (`#ops`, `ops`, `<#C…|ops>`, `<#C…>`, `C…`) → its id: the workspace
   * look-up every `/hermes` subcommand uses (`slack/commands/resolve-named.ts`).
   */
  resolveChannel: ChannelResolver;
  /** Time zone when the command has no `tz=` (e.g. the admin's Slack time zone). Default UTC. */
  defaultTimezone?: string;
}

export const SCHEDULE_USAGE = [
  "Schedules (admins):",
  '• `/hermes schedule add "<cron>" #channel "<prompt>" [tz=Europe/Berlin]` — e.g. `/hermes schedule add "0 9 * * 1-5" #ops "summarize urgent open tickets"`',
  "• `/hermes schedule list`",
  "• `/hermes schedule remove <id>`",
  "Cron fields: minute hour day-of-month month day-of-week (UTC unless tz= is given).",
].join("\n");

const MAX_PROMPT_CHARS = 4000;
// Straight quotes, and the curly ones a phone or macOS may type instead.
const OPEN_QUOTES = `"“”„«`;
const CLOSE_QUOTES = `"“”»`;

/**
 * Parses the text after `/hermes` (or after `/hermes schedule`) into a schedule command, or a usage
 * error a Slack user can act on. The cron pattern and the prompt go in quotes; the channel is one
 * word in any form `resolveChannel` takes (`#ops`, `ops`, `<#C…|ops>`, `C…`).
 */
export async function parseScheduleCommand(
  text: string,
  options: ParseScheduleCommandOptions,
): Promise<ParsedScheduleCommand> {
  const rest = text.trim().replace(/^schedules?\b\s*/i, "");
  const [verb = "", ...args] = rest.split(/\s+/);
  const argText = rest.slice(verb.length).trim();
  switch (verb.toLowerCase()) {
    case "":
    case "help":
      return ok({ kind: "help", text: SCHEDULE_USAGE });
    case "list":
    case "ls":
      return args.length === 0 ? ok({ kind: "list" }) : usage("`list` takes no arguments.");
    case "remove":
    case "rm":
    case "delete": {
      const id = args.length === 1 ? args[0]?.replace(/^#/, "") : undefined;
      if (!id || !/^\d{1,9}$/.test(id))
        return usage("Give the schedule's number: `/hermes schedule remove 3`.");
      return ok({ kind: "remove", id: Number(id) });
    }
    case "add":
      return parseAdd(argText, options);
    default:
      return usage(`I don't know \`schedule ${verb}\`.`);
  }
}

async function parseAdd(text: string, options: ParseScheduleCommandOptions): Promise<ParsedScheduleCommand> {
  // 1. "<cron>"
  if (!OPEN_QUOTES.includes(text.charAt(0))) {
    return usage('Put the cron pattern in quotes, e.g. `"0 9 * * 1-5"`.');
  }
  const cronEnd = findClose(text, 1);
  if (cronEnd < 0) return usage("The cron pattern's closing quote is missing.");
  const cron = text.slice(1, cronEnd).trim().replace(/\s+/g, " ");
  if (!cron.startsWith("@") && cron.split(" ").length !== 5) {
    return usage(
      `"${cron}" needs 5 fields: minute hour day-of-month month day-of-week (schedules fire at most once a minute).`,
    );
  }

  // 2. the channel
  let rest = text.slice(cronEnd + 1).trim();
  const channelToken = rest.split(/\s+/)[0] ?? "";
  if (channelToken === "" || OPEN_QUOTES.includes(channelToken.charAt(0))) {
    return usage("Name the channel after the cron pattern, e.g. `#ops`.");
  }
  rest = rest.slice(channelToken.length).trim();

  // 3. optional trailing tz=…
  let timezone = options.defaultTimezone ?? "UTC";
  const tz = /\s*\btz=(\S+)$/i.exec(rest);
  if (tz?.[1]) {
    timezone = tz[1];
    rest = rest.slice(0, tz.index).trim();
    if (!isTimeZone(timezone))
      return usage(`"${timezone}" is not a time zone; use an IANA name like Europe/Berlin.`);
  }

  // 4. "<prompt>": from the first quote to the last, so quotes inside the prompt survive.
  if (rest === "") return usage('Add the prompt in quotes, e.g. `"summarize urgent open tickets"`.');
  if (
    !OPEN_QUOTES.includes(rest.charAt(0)) ||
    rest.length < 2 ||
    !CLOSE_QUOTES.includes(rest.charAt(rest.length - 1))
  ) {
    return usage('Put the prompt in quotes, e.g. `"summarize urgent open tickets"`.');
  }
  const prompt = unescapeSlack(rest.slice(1, -1)).trim();
  if (prompt === "") return usage("The prompt is empty.");
  if (prompt.length > MAX_PROMPT_CHARS)
    return usage(`The prompt is longer than ${MAX_PROMPT_CHARS} characters.`);

  const check = checkCron(cron, timezone);
  if (!check.ok) return usage(`${check.problem}.`);

  const channel = await options.resolveChannel(channelToken);
  if (!channel.ok) return usage(channel.error);
  return ok({ kind: "add", cron, timezone, channelId: channel.id, prompt });
}

function findClose(text: string, from: number): number {
  for (let i = from; i < text.length; i++) if (CLOSE_QUOTES.includes(text.charAt(i))) return i;
  return -1;
}

/** Slack escapes these three in command text. */
function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

const ok = (command: ScheduleCommand): ParsedScheduleCommand => ({ ok: true, command });
const withUsage = (problem: string) => `${problem}\n\n${SCHEDULE_USAGE}`;
const usage = (problem: string): ParsedScheduleCommand => ({ ok: false, error: withUsage(problem) });
