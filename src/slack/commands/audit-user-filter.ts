import { isHermesError } from "../../errors.ts";
import { type Directory, resolveReference } from "../../tools/references/resolve-reference.ts";
import type { AuditFilters } from "./parse-audit-filters.ts";

/**
 * `user:` given as a name (`@li.ming`, `"Li Ming"`, `李明`) → that person's id, looked up in the
 * workspace as the tools do; an unknown or ambiguous name is a sentence naming close matches.
 * A failure to reach Slack is thrown (the command's failure path logs it).
 */
export async function resolveAuditUser(
  directory: Directory,
  filters: AuditFilters,
  userName: string | undefined,
): Promise<{ ok: true; filters: AuditFilters } | { ok: false; error: string }> {
  if (!userName) return { ok: true, filters };
  try {
    const { id } = await resolveReference(directory, userName, "user");
    return { ok: true, filters: { ...filters, user: id } };
  } catch (err) {
    if (isHermesError(err, "bad_request")) return { ok: false, error: `\`user:\` ${err.message}` };
    throw err;
  }
}
