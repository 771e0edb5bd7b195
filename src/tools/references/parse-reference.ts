/**
 * What a person or model wrote for a user or channel, before any look-up: an encoded reference
 * (`<@U…>`, `<@U…|name>`, `<#C…>`, `<#C…|name>`), something shaped like a raw id (`U…`, `W…`, `C…`,
 * `G…`: it may still be a name, e.g. "CEO"), a `@name`, a `#name`, or a bare name.
 */
export type ParsedReference =
  | { kind: "user"; id: string }
  | { kind: "channel"; id: string }
  | { kind: "raw_id"; id: string; name: string }
  | { kind: "user_name"; name: string }
  | { kind: "channel_name"; name: string }
  | { kind: "name"; name: string };

const ENCODED_USER = /^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$/;
const ENCODED_CHANNEL = /^<#([CG][A-Z0-9]+)(?:\|[^>]*)?>$/;
const RAW_ID = /^[@#]?([UWCG][A-Z0-9]{2,})$/;

export function parseReference(written: string): ParsedReference {
  const text = written.trim();
  const user = ENCODED_USER.exec(text);
  if (user) return { kind: "user", id: user[1]! };
  const channel = ENCODED_CHANNEL.exec(text);
  if (channel) return { kind: "channel", id: channel[1]! };
  const raw = RAW_ID.exec(text);
  if (raw) return { kind: "raw_id", id: raw[1]!, name: text };
  // ＠ and ＃ typed with a Chinese input method are @ and #.
  const lead = text.slice(0, 1).normalize("NFKC");
  if (lead === "@") return { kind: "user_name", name: text.slice(1).trim() };
  if (lead === "#") return { kind: "channel_name", name: text.slice(1).trim() };
  return { kind: "name", name: text };
}
