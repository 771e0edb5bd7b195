import { errorMessage } from "../../core/errors.ts";
import { parseTimeBound } from "../../store/audit-time.ts";
import { RUN_STATUSES, type RunStatus } from "../../store/schema.ts";
import { parseUserRef } from "../../tools/slack-port.ts";
import { TOKEN } from "./parse-audit-filters.ts";

/** What `/hermes runs …` filters on. */
export interface RunFilters {
  user?: string;
  status?: RunStatus;
  since?: Date;
}

/** `userName`: `user:` written as a name (`@li.ming`, `"Li Ming"`), for the caller to look up. */
export type ParsedRunFilters =
  | { ok: true; filters: RunFilters; userName?: string }
  | { ok: false; error: string };

/** People read a completed run as "answered"; both words work. */
const STATUS_WORDS = new Map<string, RunStatus>([
  ...RUN_STATUSES.map((s) => [s, s] as [string, RunStatus]),
  ["answered", "completed"],
]);
export const STATUS_LIST = ["answered", ...RUN_STATUSES.filter((s) => s !== "completed")].join(", ");

/**
 * Parses the filters after `/hermes runs`: `user:<@U…>`, `user:U…` or a name (returned as `userName`
 * for the caller to look up, as `/hermes audit` does), `status:failed` (answered,
 * running, paused, failed, stopped), `since:24h` or a date (UTC). A bad filter gives one line naming it.
 */
export function parseRunFilters(text: string, now: Date = new Date()): ParsedRunFilters {
  const filters: RunFilters = {};
  const seen = new Set<string>();
  let userName: string | undefined;
  for (const token of text.trim().match(TOKEN) ?? []) {
    const at = token.search(/[:=]/);
    if (at <= 0)
      return fail(
        `\`${token}\` is not a filter: write key:value, e.g. \`status:failed\` (\`user:\`, \`status:\`, \`since:\`).`,
      );
    const key = token.slice(0, at).toLowerCase();
    const value = token.slice(at + 1).trim();
    if (key !== "user" && key !== "status" && key !== "since")
      return fail(`Unknown filter \`${key}:\`. Use \`user:\`, \`status:\` or \`since:\`.`);
    if (value === "") return fail(`\`${key}:\` needs a value, e.g. \`${key}:${EXAMPLES[key]}\`.`);
    if (seen.has(key)) return fail(`\`${key}:\` is given twice; give it once.`);
    seen.add(key);
    if (key === "user") {
      const id = parseUserRef(value);
      if (id) filters.user = id;
      else userName = value.replace(/^"(.*)"$/, "$1");
    } else if (key === "status") {
      const status = STATUS_WORDS.get(value.toLowerCase());
      if (!status) return fail(`\`status:${value}\` is not a run status; use one of ${STATUS_LIST}.`);
      filters.status = status;
    } else {
      try {
        filters.since = parseTimeBound(value, now);
      } catch (err) {
        return fail(`Bad \`since:\` filter: ${errorMessage(err)}`);
      }
    }
  }
  return { ok: true, filters, ...(userName ? { userName } : {}) };
}

const EXAMPLES: Record<string, string> = { user: "@li.ming", status: "failed", since: "24h" };
const fail = (error: string): ParsedRunFilters => ({ ok: false, error });
