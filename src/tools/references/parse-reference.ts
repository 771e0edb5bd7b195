/**
 * What a person or model wrote for a user, channel or user group, before any look-up: an encoded
 * reference (`<@U…>`, `<@U…|name>`, `<#C…>`, `<#C…|name>`, `<!subteam^S…|@handle>`), something
 * shaped like a raw id (`U…`, `W…` for people, `C…`, `G…`, `D…` for channels and DMs, `S…` for user
 * groups: it may still be a name, e.g. "CEO"), a `@name`, a `#name`, or a bare name.
 */
export type ParsedReference =
  | { kind: "user"; id: string }
  | { kind: "channel"; id: string }
  | { kind: "group"; id: string }
  | { kind: "raw_id"; id: string; name: string }
  | { kind: "user_name"; name: string }
  | { kind: "channel_name"; name: string }
  | { kind: "name"; name: string };

const ENCODED_USER = /^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$/;
const ENCODED_CHANNEL = /^<#([CGD][A-Z0-9]+)(?:\|[^>]*)?>$/;
const ENCODED_GROUP = /^<!subteam\^(S[A-Z0-9]+)(?:\|[^>]*)?>$/;
const RAW_ID = /^[@#]?([UWCGDS][A-Z0-9]{2,})$/;

/** What a raw id's first letter says it is. */
export function idType(id: string): "user" | "channel" | "group" {
  return /^[UW]/.test(id) ? "user" : id.startsWith("S") ? "group" : "channel";
}

export function parseReference(written: string): ParsedReference {
  const text = written.trim();
  const user = ENCODED_USER.exec(text);
  if (user) return { kind: "user", id: user[1]! };
  const channel = ENCODED_CHANNEL.exec(text);
  if (channel) return { kind: "channel", id: channel[1]! };
  const group = ENCODED_GROUP.exec(text);
  if (group) return { kind: "group", id: group[1]! };
  const raw = RAW_ID.exec(text);
  if (raw) return { kind: "raw_id", id: raw[1]!, name: text };
  // ＠ and ＃ typed with a Chinese input method are @ and #.
  const lead = text.slice(0, 1).normalize("NFKC");
  if (lead === "@") return { kind: "user_name", name: text.slice(1).trim() };
  if (lead === "#") return { kind: "channel_name", name: text.slice(1).trim() };
  return { kind: "name", name: text };
}
