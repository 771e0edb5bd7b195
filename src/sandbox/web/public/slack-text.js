/**
 * What a Slack client sends for typed text: `&`, `<` and `>` escaped; `@name` of a known person as
 * `<@U…>` and `#name` of a known channel as `<#C…|name>`. A person may be named by handle, display
 * name or real name ("@Li Ming"), case ignored; the longest name that ends at a word boundary wins,
 * so trailing punctuation stays text and `@li.mingo` is not `@li.ming` + "o".
 *
 * `{ command: true }`: a slash command's text, as Slack sends it for a command whose manifest sets
 * `should_escape: true` (ours does): a person as `<@U…|handle>`, a channel as `<#C…|name>`.
 */
export function toSlackText(typed, users, channels = [], { command = false } = {}) {
  const escaped = typed.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const people = byLength(
    users.flatMap((u) =>
      [u.name, u.displayName, u.realName]
        .filter(Boolean)
        .map((name) => ({ name, token: command ? `<@${u.id}|${u.name}>` : `<@${u.id}>` })),
    ),
  );
  const rooms = byLength(
    channels.filter((c) => !c.isIm && c.name).map((c) => ({ name: c.name, token: `<#${c.id}|${c.name}>` })),
  );
  let out = "";
  let i = 0;
  while (i < escaped.length) {
    const sigil = escaped[i];
    const lead = i === 0 ? "" : escaped[i - 1];
    const names = sigil === "@" ? people : sigil === "#" ? rooms : null;
    // `me@hermes.dev` and `a#b` are not references: a sigil starts one only after a space or punctuation.
    const match = names && !/[\w@#.&;]/.test(lead) ? longestAt(escaped, i + 1, names) : undefined;
    if (match) {
      out += match.token;
      i += 1 + match.name.length;
    } else {
      out += sigil;
      i += 1;
    }
  }
  return out;
}

/** Candidates longest first, so "Li Ming Jr" is tried before "Li Ming". */
function byLength(entries) {
  return entries.sort((a, b) => b.name.length - a.name.length);
}

function longestAt(text, start, names) {
  const rest = text.slice(start).toLowerCase();
  return names.find(({ name }) => {
    const lower = name.toLowerCase();
    if (!rest.startsWith(lower)) return false;
    const next = rest.slice(lower.length, lower.length + 1);
    return next === "" || !/[\p{L}\p{N}_-]/u.test(next);
  });
}
