import { createRequire } from "node:module";
import { escapeSlackText } from "../tools/slack-port.ts";
import { defuseBroadcasts, withReferencesKept } from "./blocks/slack-references.ts";

export { escapeSlackText as escapeMrkdwn } from "../tools/slack-port.ts";

/**
 * Model Markdown → Slack mrkdwn. Person and channel references (`<@U…>`, `<#C…|ops>`) survive as
 * written; broadcast mentions and user-group pings would notify whole channels and are defused.
 */
export function markdownToMrkdwn(markdown: string): string {
  if (isPlainProse(markdown)) return markdown;
  const defused = defuseBroadcasts(markdown);
  let converted: string;
  try {
    converted = withReferencesKept(defused, convert);
  } catch {
    // The converter throws on some links (`www.%` is a malformed URI to it): the answer is then
    // shown as plain text rather than lost.
    return withReferencesKept(defused, escapeSlackText).trim();
  }
  return converted.replace(/\u200b/g, "").trim();
}

// Letters, digits, spaces and prose punctuation that mean nothing to Markdown or mrkdwn: no `*_~`#>|[]\`,
// no `&` or `<` (escaped for Slack), no `@` (e-mail autolinks). Newlines are checked separately.
const PROSE = /^[\p{L}\p{N}\p{M} .,;:?!'"()%/$€£¥°+=\-–—…‘’“”«»、。！（），：；？]*$/u;
// What prose characters still start: autolinks, edge or doubled whitespace (trimmed or collapsed),
// list items (`1.`, `2)`, `- `, `+ `), setext underlines (`=`, `-`), a one-column table's delimiter
// row (`:-`, `:-:`: GFM needs no pipes for one column), paragraph breaks beyond one.
const NOT_PLAIN = /www\.|:\/\/|^\s|\s$| \n|\n | {2}|\n\n\n|(?:^|\n)(?:\d+[.)]|[-+=]|:-)/i;

/**
 * Plain prose (most short answers) converts to itself: checked without parsing, so it skips the
 * Markdown converter (~0.5 ms for a sentence, ~12 ms per KB). Conservative: anything it is not sure
 * of goes to the converter; a property test holds it to the converter's output.
 */
export function isPlainProse(text: string): boolean {
  return text.length > 0 && PROSE.test(text.replace(/\n/g, "")) && !NOT_PLAIN.test(text);
}

/**
 * slackify-markdown's own pipeline (remark-parse + GFM + its mrkdwn stringifier), built on the first
 * conversion (plain prose never loads it) and then kept, instead of built on every call as
 * `slackifyMarkdown()` does: its link definitions are the one per-call state, and a conversion is
 * synchronous, so they are cleared before each. Falls back to `slackifyMarkdown` if the pinned
 * package's layout ever changes.
 */
let converter: ((markdown: string) => string) | undefined;
function convert(markdown: string): string {
  converter ??= buildConverter();
  return converter(markdown);
}

/**
 * Builds the converter now (loading remark and its plugins costs ~100 ms of synchronous work): a
 * process that answers turns calls it at start-up, so its first answer does not hold the event loop.
 */
export function preloadMrkdwn(): void {
  convert("*warm*");
}

function buildConverter(): (markdown: string) => string {
  const load = createRequire(createRequire(import.meta.url).resolve("slackify-markdown"));
  const slackifyMarkdown = load("./index.js") as (markdown: string) => string;
  try {
    const unified = load("unified") as () => Processor;
    const { collectDefinitions, removeDefinitions } = load("./src/definitions") as Record<string, unknown>;
    const slackifyOptions = load("./src/slackify") as (definitions: object) => unknown;
    const definitions: Record<string, unknown> = {};
    const processor = unified()
      .use(load("remark-parse"))
      .use(load("remark-gfm"))
      .use(collectDefinitions, definitions)
      .use(removeDefinitions)
      .use(load("remark-stringify"), slackifyOptions(definitions))
      .freeze();
    return (markdown) => {
      for (const key of Object.keys(definitions)) delete definitions[key];
      return String(processor.processSync(markdown));
    };
  } catch {
    return slackifyMarkdown;
  }
}

interface Processor {
  use(plugin: unknown, options?: unknown): Processor;
  freeze(): Processor;
  processSync(text: string): unknown;
}
