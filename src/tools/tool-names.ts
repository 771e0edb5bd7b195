/**
 * Tool names as models really write them: `functions.create_ticket`, `default_api.create_ticket`,
 * `mcp__tickets__create_ticket`, `create_ticket:0` (Kimi's call index), `create_ticket<|channel|>commentary`
 * (a leaked special token and channel), `Create-Ticket`. Resolution maps such a name onto exactly one
 * of the given tools, or onto none: an ambiguous name is not guessed.
 */

/** MCP's namespace before a name (`mcp__server__`); dotted ones (`functions.`, `default_api.`) end at the last `.`. */
const MCP_PREFIX = "mcp__";

/**
 * The bare name a model meant: leaked special tokens and what follows them cut, surrounding quotes,
 * backticks and whitespace removed, a `:N` index and a namespace (anything up to the last `.` or `/`,
 * or an `mcp__server__` prefix) stripped. Linear; never longer than the input.
 */
export function bareToolName(raw: string): string {
  let name = raw;
  // A special token (`<|channel|>`, `<|constrain|>`, DeepSeek's full-width `<｜…｜>`) ends the name.
  for (const token of ["<|", "<｜", "<"]) {
    const at = name.indexOf(token);
    if (at > 0) name = name.slice(0, at);
  }
  name = name.trim().replace(/^["'`]+|["'`]+$/g, "");
  // "get_weather json" / "get_weather commentary": a channel or constraint word after the name.
  const space = name.search(/\s/);
  if (space > 0) name = name.slice(0, space);
  name = name.replace(/:\d+$/, "");
  const cut = Math.max(name.lastIndexOf("."), name.lastIndexOf("/"));
  if (cut >= 0 && cut < name.length - 1) name = name.slice(cut + 1);
  if (name.startsWith(MCP_PREFIX)) {
    const rest = name.slice(MCP_PREFIX.length);
    const sep = rest.indexOf("__");
    if (sep >= 0 && sep < rest.length - 2) name = rest.slice(sep + 2);
  }
  return name;
}

/** The form two names are compared in: case, hyphens, underscores and spaces do not matter. */
export function toolNameKey(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}

export type NameResolution =
  | { kind: "exact"; name: string }
  | { kind: "normalized"; name: string }
  | { kind: "ambiguous"; candidates: string[] }
  | { kind: "none" };

/**
 * Which of `names` the model meant by `written`: the name itself when it is one of them, else the one
 * tool whose key equals the key of the bare name (or of the whole name, for tools whose own name has
 * a prefix-like part). Two or more matches → ambiguous; the caller treats it as unknown.
 */
export function resolveToolName(written: string, names: Iterable<string>): NameResolution {
  const list = [...names];
  if (list.includes(written)) return { kind: "exact", name: written };
  const keys = new Set([toolNameKey(written.trim()), toolNameKey(bareToolName(written))]);
  keys.delete("");
  const matches = list.filter((n) => keys.has(toolNameKey(n)));
  if (matches.length === 1) return { kind: "normalized", name: matches[0]! };
  if (matches.length > 1) return { kind: "ambiguous", candidates: matches.sort() };
  return { kind: "none" };
}
