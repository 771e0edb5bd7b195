/**
 * Slack's own markup in model text: broadcasts (`<!here>`, `<!channel>`, `<!everyone>`,
 * `<!subteam^S…>`) would notify whole channels or groups and are always defused to plain `@here`
 * text; a person (`<@U…>`, `<@U…|name>`) or channel (`<#C…>`, `<#C…|name>`) reference renders as
 * that person or channel and is kept as Slack wrote it.
 */
const BROADCAST = /<!(channel|here|everyone|subteam\^[A-Z0-9]+)(\|[^>]*)?>/gi;
// With a label: the Markdown converter keeps `<@U…>` and `<#C…>` but escapes the `>` after a label.
const LABELLED_REFERENCE = /<(?:@[UW][A-Z0-9]+|#[CG][A-Z0-9]+)\|[^<>\n]*>/g;

/** `<!here>` → `@here`, `<!subteam^S1|@ops>` → `@subteam`: shown, never notifying. */
export function defuseBroadcasts(text: string): string {
  return text.replace(BROADCAST, (_m, what: string) => `@${what.replace(/\^.*/, "")}`);
}

// Private-use characters mark where a reference was: no converter escapes or formats them.
const OPEN = "\uE000";
const CLOSE = "\uE001";
const HELD = /\uE000(\d+)\uE001/g;

/**
 * Runs `transform` over the text with its labelled person and channel references (`<#C1|ops>`,
 * `<@U1|ana>`) held aside, then puts them back as written: the Markdown converter, which keeps bare
 * `<@U1>` and `<#C1>`, would otherwise escape a labelled one into literal text.
 */
export function withReferencesKept(text: string, transform: (text: string) => string): string {
  const held: string[] = [];
  const hidden = text
    .replace(/[\uE000\uE001]/g, "")
    .replace(LABELLED_REFERENCE, (ref) => `${OPEN}${held.push(ref) - 1}${CLOSE}`);
  if (held.length === 0) return transform(hidden);
  return transform(hidden).replace(HELD, (whole, i: string) => held[Number(i)] ?? whole);
}
