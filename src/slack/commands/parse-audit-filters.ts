import { errorMessage } from "../../core/errors.ts";
import { parseTimeBound } from "../../store/audit-time.ts";
import { AUDIT_ACTIONS, type AuditAction } from "../../store/schema.ts";
import { parseReference } from "../../tools/references/parse-reference.ts";
import { parseUserRef } from "../../tools/slack-port.ts";

/** What `/hermes audit …` filters on. Times are absolute (ISO, UTC) so later pages see the same window. */
export interface AuditFilters {
  user?: string;
  /** The conversation the rows' turns were in: a channel (`C…`, `G…`) or DM (`D…`) id. */
  channel?: string;
  tool?: string;
  action?: AuditAction[];
  since?: string;
  until?: string;
}

export type ParsedAuditFilters =
  | {
      ok: true;
      filters: AuditFilters;
      /** `user:` given as a name (`@li.ming`, `"Li Ming"`, `李明`): the caller looks it up in Slack. */
      userName?: string;
      /** `channel:` given as a name (`#ops`, `ops`): the caller looks it up in Slack. */
      channelName?: string;
    }
  | { ok: false; error: string };

const KEYS = ["user", "channel", "tool", "action", "since", "until"] as const;
type Key = (typeof KEYS)[number];
const KEY_LIST = KEYS.map((k) => `\`${k}:\``).join(", ");
const SHORT_ACTIONS = AUDIT_ACTIONS.map((a) => a.replace(/^tool\./, ""));
/** A conversation id as written bare: a channel (`C…`, `G…`) or a DM (`D…`). */
const CONVERSATION_ID = /^[CGD][A-Z0-9]{2,}$/;
/** Tool names in the audit log: registry names, plus `/hermes` for refused admin commands. */
const TOOL_NAME = /^[\w./:-]{1,100}$/;
// A token is a run of non-space text, where a Slack mention `<@U…|Li Ming>` or a quoted name
// (`user:"Li Ming"`) may hold spaces.
export const TOKEN = /(?:[^\s<"]|<[^>]*>|"[^"]*")+/g;

/**
 * Parses the filters after `/hermes audit`: `user:<@U…|name>`, `user:U…` or a name (`user:@li.ming`,
 * `user:"Li Ming"`, returned as `userName` for the caller to look up), `channel:<#C…|name>`,
 * `channel:C…` (or a DM's `D…`) or a name (`channel:#ops`, returned as `channelName`), `tool:name`,
 * `action:approved` or `action:tool.approved` (comma-separated for several), `since:` and `until:`
 * as a duration back from `now` (`24h`, `7d`) or a date (`2026-11-01`, UTC). A bad filter gives one
 * line naming it.
 */
export function parseAuditFilters(text: string, now: Date = new Date()): ParsedAuditFilters {
  const filters: AuditFilters = {};
  const named: Named = {};
  const seen = new Set<Key>();
  for (const token of text.trim().match(TOKEN) ?? []) {
    const at = token.search(/[:=]/);
    if (at <= 0)
      return fail(`\`${token}\` is not a filter: write key:value, e.g. \`since:24h\` (${KEY_LIST}).`);
    const key = token.slice(0, at).toLowerCase();
    const value = token
      .slice(at + 1)
      .trim()
      .replace(/^"([^"]*)"$/, "$1")
      .trim();
    if (!isKey(key)) return fail(`Unknown filter \`${key}:\`. Use ${KEY_LIST}.`);
    if (value === "") return fail(`\`${key}:\` needs a value, e.g. ${example(key)}.`);
    if (seen.has(key) && key !== "action") return fail(`\`${key}:\` is given twice; give it once.`);
    seen.add(key);
    const problem = apply(filters, named, key, value, now);
    if (problem) return fail(problem);
  }
  if (filters.since && filters.until && filters.since >= filters.until) {
    return fail("`since:` must be before `until:`.");
  }
  return {
    ok: true,
    filters,
    ...(named.user ? { userName: named.user } : {}),
    ...(named.channel ? { channelName: named.channel } : {}),
  };
}

/** Filters written as names, for the caller to look up in the workspace. */
type Named = { user?: string; channel?: string };

function apply(filters: AuditFilters, named: Named, key: Key, value: string, now: Date): string | undefined {
  switch (key) {
    case "user": {
      const id = parseUserRef(value);
      if (id) filters.user = id;
      else named.user = value;
      return undefined;
    }
    case "channel": {
      // `<#C…|name>` and a bare id are ids; `#name` (and `#C…`) is looked up, as the tools do.
      const ref = parseReference(value);
      if (ref.kind === "user")
        return `\`channel:${value}\` is a person; \`channel:\` needs a channel, e.g. \`channel:#ops\`.`;
      if (ref.kind === "channel") filters.channel = ref.id;
      else if (CONVERSATION_ID.test(value)) filters.channel = value;
      else named.channel = value;
      return undefined;
    }
    case "tool":
      if (!TOOL_NAME.test(value)) return `\`tool:${value}\` is not a tool name, e.g. \`tool:create_ticket\`.`;
      filters.tool = value;
      return undefined;
    case "action": {
      const actions = new Set(filters.action ?? []);
      for (const word of value.split(",").filter(Boolean)) {
        const lower = word.toLowerCase();
        const action = lower.includes(".") ? lower : `tool.${lower}`; // `executed`, `audit.queried`
        if (!isAuditAction(action)) {
          return `\`action:${word}\` is not an audit action; use one of ${SHORT_ACTIONS.join(", ")}.`;
        }
        actions.add(action);
      }
      filters.action = [...actions];
      return undefined;
    }
    case "since":
    case "until":
      try {
        filters[key] = parseTimeBound(value, now).toISOString();
        return undefined;
      } catch (err) {
        return `Bad \`${key}:\` filter: ${errorMessage(err)}`;
      }
  }
}

function isKey(key: string): key is Key {
  return (KEYS as readonly string[]).includes(key);
}

function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}

function example(key: Key): string {
  const examples: Record<Key, string> = {
    user: "`user:@li.ming`",
    channel: "`channel:#ops`",
    tool: "`tool:create_ticket`",
    action: "`action:approved`",
    since: "`since:24h`",
    until: "`until:2026-11-01`",
  };
  return examples[key];
}

const fail = (error: string): ParsedAuditFilters => ({ ok: false, error });
