/** The arguments of `run <tool> key=value …`, or a sentence saying what to fix. */
export type ParsedKeyValues = { ok: true; values: Record<string, string> } | { ok: false; problem: string };

/** `key=` at the start of what is left (spaces around `=` allowed, as people type them). */
const KEY_AT = /^([A-Za-z_][\w.-]*)\s*=/;
/** Where an unquoted value ends: whitespace, then the next `key=`. */
const NEXT_KEY = /\s+[A-Za-z_][\w.-]*\s*=/;
/** Opening quote → its closing quote: straight ones (with `\` escapes) and the ones phones type. */
const QUOTES: Record<string, string> = { '"': '"', "'": "'", "“": "”", "‘": "’" };

/**
 * `to=#general text=hello everyone priority="high"` → { to: "#general", text: "hello everyone",
 * priority: "high" } (the registry coerces types). A quoted value ends at its closing quote; an
 * unquoted one runs until the next ` key=` or the end, so a message of several words is kept whole.
 * Nothing is dropped silently: text that is not `key=value`, a key given twice, a quote that is never
 * closed or text after a closing quote is refused with a sentence. `tool` (its name and argument
 * names, when the tool is known) refuses a key the tool does not take: the registry would drop it,
 * and a `word=` inside an unquoted value would otherwise cut the value short unnoticed.
 */
export function parseKeyValues(
  text: string,
  tool?: { name: string; args: readonly string[] },
): ParsedKeyValues {
  const values: Record<string, string> = {};
  let quoted: string | undefined; // the previous key, when its value was quoted
  let rest = text.trim();
  while (rest) {
    const key = KEY_AT.exec(rest);
    if (!key) return fail(notKeyValue(rest, values, quoted));
    const name = key[1]!;
    if (Object.hasOwn(values, name)) {
      return fail(
        `\`${name}=\` is given twice. Give it once; if \`${name}=\` is part of a value, put that value in quotes.`,
      );
    }
    if (tool && !tool.args.includes(name)) return fail(unknownKey(name, tool, values));
    rest = rest.slice(key[0].length);
    const value = readValue(name, rest);
    if (!value.ok) return value;
    values[name] = value.value;
    quoted = value.quoted ? name : undefined;
    rest = value.rest.trim();
  }
  return { ok: true, values };
}

type ReadValue = { ok: true; value: string; rest: string; quoted: boolean } | { ok: false; problem: string };

function readValue(key: string, text: string): ReadValue {
  // `to= text=hi`: nothing before the next key is an empty value, not the next pair.
  const lead = /^\s*/.exec(text)![0];
  if (lead && NEXT_KEY.exec(text)?.index === 0) return { ok: true, value: "", rest: text, quoted: false };
  const body = text.slice(lead.length);
  const close = QUOTES[body[0] ?? ""];
  if (!close) {
    const end = NEXT_KEY.exec(body)?.index ?? body.length;
    return { ok: true, value: body.slice(0, end).trimEnd(), rest: body.slice(end), quoted: false };
  }
  const escapes = close === body[0] && (close === '"' || close === "'");
  let value = "";
  for (let i = 1; i < body.length; i++) {
    const ch = body[i]!;
    if (escapes && ch === "\\" && i + 1 < body.length) {
      value += body[++i];
      continue;
    }
    if (ch !== close) {
      value += ch;
      continue;
    }
    const after = body.slice(i + 1);
    if (after && !/^\s/.test(after)) {
      const extra = after.split(/\s/, 1)[0];
      return fail(
        `\`${extra}\` right after the closing quote of \`${key}=\` is not part of it: put the whole value inside the quotes.`,
      );
    }
    return { ok: true, value, rest: after, quoted: true };
  }
  return fail(
    `The quote that starts the value of \`${key}=\` is never closed: end the value with ${close}, or leave the quotes out.`,
  );
}

function notKeyValue(rest: string, values: Record<string, string>, quoted: string | undefined): string {
  const word = rest.split(/\s/, 1)[0]!;
  const shown = word.length > 40 ? `${word.slice(0, 40)}…` : word;
  if (quoted)
    return `\`${shown}\` after the quoted value of \`${quoted}=\` is not part of it: put the whole value inside the quotes.`;
  return Object.keys(values).length
    ? `\`${shown}\` is not key=value. Write every argument as key=value, e.g. \`text="two words"\`.`
    : `\`${shown}\` is not key=value: write the arguments as key=value pairs after the tool's name, e.g. \`text="two words"\`.`;
}

function unknownKey(
  name: string,
  tool: { name: string; args: readonly string[] },
  values: Record<string, string>,
): string {
  const args = tool.args.length
    ? `its arguments are ${tool.args.map((k) => `\`${k}\``).join(", ")}`
    : "it takes no arguments";
  const previous = Object.keys(values).at(-1);
  const quote = previous
    ? ` If \`${name}=\` is part of the value of \`${previous}\`, put that value in quotes: \`${previous}="…"\`.`
    : "";
  return `\`${tool.name}\` has no argument \`${name}\`: ${args}.${quote}`;
}

const fail = (problem: string): { ok: false; problem: string } => ({ ok: false, problem });
