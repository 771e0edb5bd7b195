import { isHermesError } from "../../errors.ts";
import {
  type Directory,
  type ReferenceKind,
  resolveReference,
} from "../../tools/references/resolve-reference.ts";

/** As long as a tool call's look-up may take (src/agent/resolve-call-args.ts). */
const RESOLVE_TIMEOUT_MS = 20_000;
const isTimeout = (err: unknown) => err instanceof DOMException && err.name === "TimeoutError";

type Resolved<F> = { ok: true; filters: F } | { ok: false; error: string };

/**
 * `user:` given as a name (`@li.ming`, `"Li Ming"`, `李明`) → that person's id, looked up in the
 * workspace as the tools do; an unknown or ambiguous name is a sentence naming close matches.
 * A look-up that takes longer than `RESOLVE_TIMEOUT_MS` (the directory still loading) is that
 * sentence too; any other failure to reach Slack is thrown (the command's failure path logs it).
 */
export async function resolveAuditUser<F extends { user?: string }>(
  directory: Directory,
  filters: F,
  userName: string | undefined,
): Promise<Resolved<F>> {
  if (!userName) return { ok: true, filters };
  const found = await lookUp(directory, userName, "user");
  return found.ok ? { ok: true, filters: { ...filters, user: found.id } } : found;
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
  const found = await lookUp(directory, channelName, "channel");
  return found.ok ? { ok: true, filters: { ...filters, channel: found.id } } : found;
}

async function lookUp(
  directory: Directory,
  written: string,
  kind: Exclude<ReferenceKind, "recipient">,
): Promise<{ ok: true; id: string } | { ok: false; error: string }> {
  try {
    const signal = AbortSignal.timeout(RESOLVE_TIMEOUT_MS);
    return { ok: true, id: (await resolveReference(directory, written, kind, { signal })).id };
  } catch (err) {
    if (isHermesError(err, "bad_request") || (isHermesError(err) && isTimeout(err.cause)))
      return { ok: false, error: `\`${kind}:\` ${err.message}` };
    throw err;
  }
}
