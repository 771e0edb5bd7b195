import slackifyMarkdown from "slackify-markdown";

export { escapeSlackText as escapeMrkdwn } from "../tools/slack-port.ts";

// Broadcast mentions and user-group pings from model text would notify whole channels: never allowed.
const BROADCAST = /<!(channel|here|everyone|subteam\^[A-Z0-9]+)(\|[^>]*)?>/gi;

/** Model Markdown → Slack mrkdwn. User mentions (`<@U…>`) survive; broadcast mentions are defused. */
export function markdownToMrkdwn(markdown: string): string {
  const defused = markdown.replace(BROADCAST, (_m, what: string) => `@${what.replace(/\^.*/, "")}`);
  return slackifyMarkdown(defused)
    .replace(/\u200b/g, "")
    .trim();
}
