import type { Directory } from "../../tools/references/resolve-reference.ts";
import { resolveNamed } from "./resolve-named.ts";

type Resolved<F> = { ok: true; filters: F } | { ok: false; error: string };

/**
 * `user:` given as a name (`@li.ming`, `"Li Ming"`, `李明`) → that person's id, looked up in the
 * workspace as the tools do (`resolveNamed`); an unknown or ambiguous name is a sentence naming
 * close matches, after `user:`.
 */
export async function resolveAuditUser<F extends { user?: string }>(
  directory: Directory,
  filters: F,
  userName: string | undefined,
  /** The subcommand whose `user:` this is, for the example in a sentence. */
  command: "audit" | "runs" = "audit",
): Promise<Resolved<F>> {
  if (!userName) return { ok: true, filters };
  const named = await resolveNamed(directory, userName, "user", `/hermes ${command} user:@li.ming`);
  if (!named.ok) return { ok: false, error: `\`user:\` ${named.error}` };
  return { ok: true, filters: { ...filters, user: named.resolved.id } };
}

/**
 * `channel:` given as a name (`#ops`, `ops`, `#C0OPS`) → that channel's id, through the same
 * directory and with the same close-match sentences as `user:` (a private channel is found only by
 * its exact name and never suggested).
 */
export async function resolveAuditChannel<F extends { channel?: string }>(
  directory: Directory,
  filters: F,
  channelName: string | undefined,
): Promise<Resolved<F>> {
  if (!channelName) return { ok: true, filters };
  const named = await resolveNamed(directory, channelName, "channel", "/hermes audit channel:#ops");
  if (!named.ok) return { ok: false, error: `\`channel:\` ${named.error}` };
  return { ok: true, filters: { ...filters, channel: named.resolved.id } };
}
