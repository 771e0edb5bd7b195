import type { Redactor } from "../../policy/redact.ts";

/** Titles are a line in Slack's thread list: a few words are enough. */
const MAX_TITLE = 60;

/**
 * An assistant thread's title from its first request: personal data and secrets redacted (the title
 * shows in the thread list), mentions and mrkdwn reduced to text, one line, at most 60 characters.
 */
export function threadTitle(text: string, redactor: Pick<Redactor, "redactText" | "redactSecrets">): string {
  const plain = redactor
    .redactSecrets(redactor.redactText(text))
    .replace(/<[@#!]([^>|]+)(\|([^>]*))?>/g, (_m, id: string, _l, label?: string) => label ?? id)
    .replace(/<([^>|]+)\|([^>]*)>/g, "$2")
    .replace(/[*_~`>]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  if (plain.length === 0) return "New request";
  return plain.length <= MAX_TITLE ? plain : `${plain.slice(0, MAX_TITLE - 1).trimEnd()}…`;
}
