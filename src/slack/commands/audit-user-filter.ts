import type { Directory } from "../../tools/references/resolve-reference.ts";
import { resolveNamed } from "./resolve-named.ts";

/**
 * `user:` given as a name (`@li.ming`, `"Li Ming"`, `李明`) → that person's id, looked up in the
 * workspace as the tools do (`resolveNamed`); an unknown or ambiguous name is a sentence naming
 * close matches, after `user:`.
 */
export async function resolveAuditUser<F extends { user?: string }>(
  directory: Directory,
  filters: F,
  userName: string | undefined,
): Promise<{ ok: true; filters: F } | { ok: false; error: string }> {
  if (!userName) return { ok: true, filters };
  const named = await resolveNamed(directory, userName, "user");
  if (!named.ok) return { ok: false, error: `\`user:\` ${named.error}` };
  return { ok: true, filters: { ...filters, user: named.resolved.id } };
}
