import { HermesError } from "../../core/errors.ts";
import { type Directory, resolveReference } from "../references/resolve-reference.ts";
import type { SlackPort } from "../slack-port.ts";
import { parseUserRef } from "../slack-port.ts";

export const USER_REF_HINT =
  'a person: @li.ming, their name ("Li Ming"), a mention like <@U012AB3CD>, their id, or "me"';

/** "none", "nobody", "unassigned": no assignee (to unassign, or to find unassigned tickets). */
export const isNoUserRef = (ref: string) => /^\s*(none|nobody|unassigned?)\s*$/i.test(ref);

/**
 * The named user fields of a ticket call with names turned into ids (`@li.ming`, "Li Ming", "李明"
 * → `U…`), before policy and audit see the call; "me" and "none" are kept for the tool to read.
 */
export async function resolveUserFields<A extends Record<string, unknown>>(
  directory: Directory,
  args: A,
  fields: ReadonlyArray<keyof A & string>,
  signal?: AbortSignal,
): Promise<A> {
  const out: Record<string, unknown> = { ...args };
  for (const field of fields) {
    const ref = args[field];
    if (typeof ref !== "string" || ref.trim().toLowerCase() === "me" || isNoUserRef(ref)) continue;
    out[field] = (await resolveReference(directory, ref, "user", signal ? { signal } : {})).id;
  }
  return out as A;
}

/** `me`, `U…` or `<@U…>` → a user id, without asking Slack (search filters need no live user). */
export function parseUserFilter(ref: string, requesterId: string, field: string): string {
  if (ref.trim().toLowerCase() === "me") return requesterId;
  const id = parseUserRef(ref);
  if (!id) throw new HermesError("bad_request", `${field} "${ref}" is not a user: give ${USER_REF_HINT}.`);
  return id;
}

/**
 * An assignee must be a live person in the workspace: asked of Slack, never of the model.
 * Deleted users, bots and unknown ids are refused with a sentence naming the id.
 */
export async function resolveAssignee(
  slack: Pick<SlackPort, "getUser">,
  ref: string,
  requesterId: string,
): Promise<string> {
  const id = parseUserFilter(ref, requesterId, "assignee");
  let user: Awaited<ReturnType<SlackPort["getUser"]>>;
  try {
    user = await slack.getUser(id);
  } catch (err) {
    // Not a database failure: say what could not be checked.
    throw new HermesError("tool_failed", `Could not look up ${id} in Slack, so nothing was changed.`, {
      cause: err,
    });
  }
  if (!user) throw new HermesError("bad_request", `Cannot assign to ${id}: there is no such Slack user.`);
  if (user.deleted) {
    throw new HermesError(
      "bad_request",
      `Cannot assign to ${id} (${user.name}): that account is deactivated.`,
    );
  }
  if (user.isBot) throw new HermesError("bad_request", `Cannot assign to ${id} (${user.name}): it is a bot.`);
  return id;
}
