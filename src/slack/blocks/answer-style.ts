/**
 * Whether an answer reads better as Slack's `markdown` block (standard Markdown, rendered by Slack,
 * tables included) than as mrkdwn sections: it has a table, a heading or a list, which mrkdwn has no
 * form for. Code blocks are left out of the check (a `#` or `|` in code means nothing). Plain prose,
 * emphasis, links and code stay mrkdwn sections, which show the same.
 */
export function prefersMarkdownBlock(markdown: string): boolean {
  const outsideCode = markdown.replace(/^ {0,3}```[^\n]*\n[\s\S]*?(?:^ {0,3}```[^\n]*$|(?![\s\S]))/gm, "");
  return TABLE.test(outsideCode) || HEADING.test(outsideCode) || LIST.test(outsideCode);
}

// A header row with a pipe, then a delimiter row (`|---|:--:|`, `--- | ---`).
const TABLE = /^[^\n]*\|[^\n]*\n[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/m;
const HEADING = /^ {0,3}#{1,6}[ \t]+\S/m;
const LIST = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S/m;
