import { readTokenAmount, TOKEN_AMOUNT_FORMS } from "../../core/token-amount.ts";
import {
  MAX_PROFILE_TOKENS_PER_DAY,
  modelNameProblem,
  PROFILE_LEVELS,
  type ProfileLevel,
} from "../../profiles/channel-profile.ts";

/** Whose profile a command names: the channel it is typed in, another channel, or the default. */
export type ProfileTarget =
  | { kind: "here" }
  | { kind: "channel"; id: string }
  /** `#ops`: a channel name, looked up in the workspace. */
  | { kind: "named"; name: string }
  | { kind: "default" };

/** One field change: a value, or `null` to remove the field (the channel then has no limit there). */
export type ProfileFieldChange =
  | { field: "instructions"; value: string | null }
  | { field: "tools"; value: string[] | null }
  | { field: "level"; value: ProfileLevel | null }
  | { field: "model"; value: string | null }
  | { field: "fallbackModel"; value: string | null }
  | { field: "tokensPerDay"; value: number | null }
  | { field: "streaming"; value: boolean | null };

export type ProfileCommand =
  | { kind: "show"; target: ProfileTarget }
  | { kind: "set"; target: ProfileTarget; change: ProfileFieldChange }
  | { kind: "clear"; target: ProfileTarget };

export const PROFILE_USAGE =
  "`/hermes profile` shows this channel's profile; admins change it with `/hermes profile set tools get_current_time,search_tickets`, `/hermes profile set level viewer`, `/hermes profile set instructions Answer as the support desk.`, `/hermes profile set model qwen2.5:14b-instruct`, `/hermes profile set fallback_model qwen2.5:7b-instruct`, `/hermes profile set tokens_per_day 2m`, `/hermes profile set streaming on|off` (`unset` removes a field; `off` too, except for streaming), and `/hermes profile clear`. Put `default` or `#channel` after `set`/`clear` for the default profile or another channel. Admins can also edit profiles in the App Home.";

/** A channel mention as Slack sends it (`<#C0123|ops>`, `<#C0123>`) or a bare channel id. */
const CHANNEL_REF = /^(?:<#([CG][A-Z0-9]+)(?:\|[^>]*)?>|([CG][A-Z0-9]{2,}))$/;

function targetOf(word: string | undefined): ProfileTarget | undefined {
  if (word === undefined) return undefined;
  if (word.toLowerCase() === "default") return { kind: "default" };
  const m = CHANNEL_REF.exec(word);
  const id = m?.[1] ?? m?.[2];
  if (id) return { kind: "channel", id };
  return /^#\S+$/.test(word) ? { kind: "named", name: word } : undefined;
}

const OFF = new Set(["off", "none", "default", "unset", "clear"]);

/**
 * `/hermes profile [default|#channel]`, `/hermes profile set [default|#channel] <field> <value>`,
 * `/hermes profile clear [default|#channel]`. Fields: `instructions` (the rest of the text), `tools`
 * (names separated by commas or spaces; `nothing` for no tools at all), `level` (viewer or user),
 * `model` and `fallback_model` (a model name), `tokens_per_day` (a token amount; 0: no limit),
 * `streaming` (on or off).
 */
export function parseProfileCommand(
  args: string,
): { ok: true; command: ProfileCommand } | { ok: false; error: string } {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const verb = (words[0] ?? "").toLowerCase();
  if (verb === "" || verb === "show") {
    const target = words[verb === "" ? 0 : 1];
    if (target === undefined) return { ok: true, command: { kind: "show", target: { kind: "here" } } };
    const t = targetOf(target);
    return t ? { ok: true, command: { kind: "show", target: t } } : notUnderstood(target);
  }
  if (verb !== "set" && verb !== "clear") {
    const t = targetOf(words[0]);
    if (t && words.length === 1) return { ok: true, command: { kind: "show", target: t } };
    return notUnderstood(words[0] ?? "");
  }
  let rest = words.slice(1);
  const named = targetOf(rest[0]);
  const target: ProfileTarget = named ?? { kind: "here" };
  if (named) rest = rest.slice(1);
  if (verb === "clear") {
    return rest.length === 0
      ? { ok: true, command: { kind: "clear", target } }
      : notUnderstood(rest[0] ?? "");
  }
  const field = (rest[0] ?? "").toLowerCase();
  const valueWords = rest.slice(1);
  if (field === "") return { ok: false, error: `Say which field to set. ${PROFILE_USAGE}` };
  const value = valueText(args, valueWords.length);
  if (value === "")
    return { ok: false, error: `Give a value for ${field}, or \`off\` to remove it. ${PROFILE_USAGE}` };
  const off = OFF.has(value.toLowerCase());
  switch (field) {
    case "instructions":
    case "prompt":
      return {
        ok: true,
        command: { kind: "set", target, change: { field: "instructions", value: off ? null : value } },
      };
    case "tools":
    case "allow": {
      if (off) return { ok: true, command: { kind: "set", target, change: { field: "tools", value: null } } };
      const names = value.toLowerCase() === "nothing" ? [] : value.split(/[\s,]+/).filter(Boolean);
      return {
        ok: true,
        command: { kind: "set", target, change: { field: "tools", value: [...new Set(names)] } },
      };
    }
    case "level": {
      if (off) return { ok: true, command: { kind: "set", target, change: { field: "level", value: null } } };
      const level = PROFILE_LEVELS.find((l) => l === value.toLowerCase());
      if (!level)
        return {
          ok: false,
          error: `\`${value}\` is not a level a channel can give: use ${PROFILE_LEVELS.join(" or ")}.`,
        };
      return { ok: true, command: { kind: "set", target, change: { field: "level", value: level } } };
    }
    case "model":
    case "fallback_model":
    case "fallback": {
      const key = field === "model" ? "model" : "fallbackModel";
      if (off) return { ok: true, command: { kind: "set", target, change: { field: key, value: null } } };
      const problem = modelNameProblem(value);
      if (problem) return { ok: false, error: problem };
      return { ok: true, command: { kind: "set", target, change: { field: key, value } } };
    }
    case "tokens_per_day":
    case "tokens":
    case "budget": {
      if (off)
        return { ok: true, command: { kind: "set", target, change: { field: "tokensPerDay", value: null } } };
      const read = readTokenAmount(value);
      if (!read.ok || read.tokens > MAX_PROFILE_TOKENS_PER_DAY)
        return {
          ok: false,
          error: `\`${value}\` is not a daily token budget${read.ok ? "" : read.problem ? `: ${read.problem}` : ""}. Write one such as ${TOKEN_AMOUNT_FORMS} (0: no limit).`,
        };
      return {
        ok: true,
        command: { kind: "set", target, change: { field: "tokensPerDay", value: read.tokens } },
      };
    }
    case "streaming": {
      const word = value.toLowerCase();
      if (word === "on" || word === "off")
        return {
          ok: true,
          command: { kind: "set", target, change: { field: "streaming", value: word === "on" } },
        };
      if (OFF.has(word))
        return { ok: true, command: { kind: "set", target, change: { field: "streaming", value: null } } };
      return {
        ok: false,
        error: `\`${value}\` is not a streaming setting: use on, off, or unset (HERMES_STREAMING decides).`,
      };
    }
    default:
      return {
        ok: false,
        error: `\`${rest[0]}\` is not a profile field: use instructions, tools, level, model, fallback_model, tokens_per_day or streaming. ${PROFILE_USAGE}`,
      };
  }
}

/** The last `count` words of `args` as written (instructions keep their spacing and line breaks). */
function valueText(args: string, count: number): string {
  if (count === 0) return "";
  const trimmed = args.trim();
  const starts = [...trimmed.matchAll(/\S+/g)].map((m) => m.index ?? 0);
  return trimmed.slice(starts[starts.length - count] ?? trimmed.length).trim();
}

function notUnderstood(word: string): { ok: false; error: string } {
  return {
    ok: false,
    error: `\`${word}\` is not something \`/hermes profile\` understands. ${PROFILE_USAGE}`,
  };
}
