export type HermesCommand =
  | { kind: "help" }
  | { kind: "tools" }
  | { kind: "whoami" }
  | { kind: "approvals" }
  | { kind: "model" }
  /** `args`: the filter text, parsed once the caller is known to be an admin. */
  | { kind: "audit"; args: string }
  /** `/hermes run <id>` (`args`: the id) and `/hermes runs [filters]`. */
  | { kind: "run"; args: string }
  | { kind: "runs"; args: string }
  /** `text`: the whole command text, as `parseScheduleCommand` takes it. */
  | { kind: "schedule"; text: string }
  /** `args`: a user or channel and an amount, or nothing (show the limits). */
  | { kind: "budget"; args: string }
  | { kind: "usage" }
  /** `args`: nothing (show this channel's profile), or `set …` / `clear …`. */
  | { kind: "profile"; args: string }
  | { kind: "unknown"; word: string };

type SimpleKind = Exclude<
  HermesCommand["kind"],
  "audit" | "run" | "runs" | "schedule" | "budget" | "profile" | "unknown"
>;

const ALIASES = new Map<string, SimpleKind>([
  ["", "help"],
  ["help", "help"],
  ["?", "help"],
  ["tools", "tools"],
  ["tool", "tools"],
  ["whoami", "whoami"],
  ["me", "whoami"],
  ["approvals", "approvals"],
  ["approval", "approvals"],
  ["pending", "approvals"],
  ["model", "model"],
  ["usage", "usage"],
]);

/** The subcommand of `/hermes <text>`; an empty text is `help`, an unknown word is `unknown`. */
export function parseHermesCommand(text: string): HermesCommand {
  const trimmed = text.trim();
  const word = (trimmed.split(/\s+/)[0] ?? "").toLowerCase();
  const simple = ALIASES.get(word);
  if (simple) return { kind: simple };
  if (word === "audit") return { kind: "audit", args: trimmed.slice(word.length).trim() };
  if (word === "run" || word === "runs") return { kind: word, args: trimmed.slice(word.length).trim() };
  if (word === "schedule" || word === "schedules") return { kind: "schedule", text: trimmed };
  if (word === "budget" || word === "budgets")
    return { kind: "budget", args: trimmed.slice(word.length).trim() };
  if (word === "profile" || word === "profiles")
    return { kind: "profile", args: trimmed.slice(word.length).trim() };
  return { kind: "unknown", word: trimmed.split(/\s+/)[0] ?? "" };
}
