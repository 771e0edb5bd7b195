import { isHermesError } from "../../errors.ts";
import { type Directory, resolveReference } from "../../tools/references/resolve-reference.ts";

/** As long as a tool call's look-up may take (src/agent/resolve-call-args.ts). */
const RESOLVE_TIMEOUT_MS = 20_000;
const isTimeout = (err: unknown) => err instanceof DOMException && err.name === "TimeoutError";

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
): Promise<{ ok: true; filters: F } | { ok: false; error: string }> {
  if (!userName) return { ok: true, filters };
  try {
    const signal = AbortSignal.timeout(RESOLVE_TIMEOUT_MS);
    const { id } = await resolveReference(directory, userName, "user", { signal });
    return { ok: true, filters: { ...filters, user: id } };
  } catch (err) {
    if (isHermesError(err, "bad_request") || (isHermesError(err) && isTimeout(err.cause)))
      return { ok: false, error: `\`user:\` ${err.message}` };
    throw err;
  }
}
