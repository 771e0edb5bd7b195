/**
 * Slack ids written as references Slack shows as names: `U0WANGLEI` → `<@U0WANGLEI>`, `C0OPS` →
 * `<#C0OPS>`. An id is a capital U/W (people) or C/G (channels) followed by capitals and digits, at
 * least one of them a digit (so a word like `URGENT` is left alone). A user group id stays as it is:
 * answers defuse group mentions, so its reference would read worse than the id.
 */
const USER_ID = /^[UW](?=[A-Z0-9]*\d)[A-Z0-9]{2,}$/;
/** Channels only: a DM's id (`D…`) has no name Slack would show, so it stays as it is. */
const CHANNEL_ID = /^[CG](?=[A-Z0-9]*\d)[A-Z0-9]{2,}$/;

/** A bare id as a reference; anything else (a reference already, a name, text) as it is. */
export function slackRef(value: string): string {
  if (USER_ID.test(value)) return `<@${value}>`;
  if (CHANNEL_ID.test(value)) return `<#${value}>`;
  return value;
}

/** Whether `value` is a bare Slack user or channel id. */
export const isSlackId = (value: string): boolean => USER_ID.test(value) || CHANNEL_ID.test(value);

/** Every bare id in `text` written as a reference (words are split on spaces, commas and arrows). */
export function slackRefsIn(text: string): string {
  return text.replace(/(?<![<@#^|\w])[UWCG][A-Z0-9]{2,}(?![\w>|])/g, (id) => slackRef(id));
}

/** A person as a reader sees them: a reference, or `nobody` when there is none. */
export function personRef(id: unknown): string {
  return typeof id === "string" && id && id !== "none" ? slackRef(id) : "nobody";
}
