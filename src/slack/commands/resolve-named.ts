import {
  type Directory,
  isLookupRefusal,
  type ReferenceKind,
  type Resolved,
  resolveReference,
} from "../../tools/references/resolve-reference.ts";

/** As long as a tool call's look-up may take (src/agent/run/resolve-call-args.ts). */
const RESOLVE_TIMEOUT_MS = 20_000;

/**
 * A person or channel a command was given in any form a person types or Slack sends (`#ops`, `ops`,
 * `<#C…|ops>`, `<#C…>`, `C…`, `@li.ming`, `<@U…>`, `<@U…|li.ming>`, `U…`, `"Li Ming"`, `李明`) →
 * its id, looked up in the workspace as the tools do (`resolveReference`). An unknown or ambiguous
 * name is the look-up's sentence naming close matches, followed by `example` (how the command is
 * written); so is a look-up that takes longer than `RESOLVE_TIMEOUT_MS` or finds the directory still
 * loading. Any other failure to reach Slack is thrown (the command's failure path logs it).
 */
export async function resolveNamed(
  directory: Directory,
  written: string,
  kind: ReferenceKind,
  example: string,
): Promise<{ ok: true; resolved: Resolved } | { ok: false; error: string }> {
  try {
    const signal = AbortSignal.timeout(RESOLVE_TIMEOUT_MS);
    return { ok: true, resolved: await resolveReference(directory, written, kind, { signal }) };
  } catch (err) {
    if (isLookupRefusal(err)) return { ok: false, error: `${err.message} For example: \`${example}\`.` };
    throw err;
  }
}
