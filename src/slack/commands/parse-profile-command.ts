import { PROFILE_LEVELS, type ProfileLevel } from "../../profiles/channel-profile.ts";

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
  | { field: "level"; value: ProfileLevel | null };

export type ProfileCommand =
  | { kind: "show"; target: ProfileTarget }
  | { kind: "set"; target: ProfileTarget; change: ProfileFieldChange }
  | { kind: "clear"; target: ProfileTarget };

export const PROFILE_USAGE =
  "`/hermes profile` shows this channel's profile; admins change it with `/hermes profile set tools get_current_time,search_tickets`, `/hermes profile set level viewer`, `/hermes profile set instructions Answer as the support desk.` (`off` removes a field), and `/hermes profile clear`. Put `default` or `#channel` after `set`/`clear` for the default profile or another channel.";

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
 * (names separated by commas or spaces; `nothing` for no tools at all), `level` (viewer or user).
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
    default:
      return {
        ok: false,
        error: `\`${rest[0]}\` is not a profile field: use instructions, tools or level. ${PROFILE_USAGE}`,
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
