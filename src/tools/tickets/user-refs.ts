import { HermesError } from "../../core/errors.ts";
import { type Directory, resolveReference } from "../references/resolve-reference.ts";
import { untilAborted } from "../references/until-aborted.ts";
import type { SlackPort, SlackUserGroup } from "../slack-port.ts";
import { parseGroupRef, parseUserRef } from "../slack-port.ts";

export const USER_REF_HINT =
  'a person: @li.ming, their name ("Li Ming"), a mention like <@U012AB3CD>, their id, or "me"';

/** Who may hold a ticket: a person, or a Slack user group (the ticket is then the group's). */
export const ASSIGNEE_REF_HINT = `${USER_REF_HINT}; or a user group: @netops, <!subteam^S0123ABCD>`;

/** "none", "nobody", "unassigned": no assignee (to unassign, or to find unassigned tickets). */
export const isNoUserRef = (ref: string) => /^\s*(none|nobody|unassigned?)\s*$/i.test(ref);

/** How a stored assignee reads in Slack: a person as their id, a user group as its mention. */
export const showAssignee = (id: string | null): string | null =>
  id?.startsWith("S") ? `<!subteam^${id}>` : id;

/** How long an assignee check waits for the user group list (one `usergroups.list` call). */
const GROUP_WAIT_MS = 10_000;

/**
 * The named user fields of a ticket call with names turned into ids (`@li.ming`, "Li Ming", "李明"
 * → `U…`; `@netops` → `S…` in `groupFields`), before policy and audit see the call; "me" and "none"
 * are kept for the tool to read.
 */
export async function resolveUserFields<A extends Record<string, unknown>>(
  directory: Directory,
  args: A,
  fields: ReadonlyArray<keyof A & string>,
  signal?: AbortSignal,
  groupFields: ReadonlyArray<keyof A & string> = [],
): Promise<A> {
  const out: Record<string, unknown> = { ...args };
  for (const field of fields) {
    const ref = args[field];
    if (typeof ref !== "string" || ref.trim().toLowerCase() === "me" || isNoUserRef(ref)) continue;
    const options = signal ? { signal } : {};
    out[field] = groupFields.includes(field)
      ? (await resolveReference(directory, ref, "user", { ...options, groups: true })).id
      : (await resolveReference(directory, ref, "user", options)).id;
  }
  return out as A;
}

/** `me`, `U…`, `<@U…>` (or a user group's `S…`, `<!subteam^S…>`) → an id, without asking Slack. */
export function parseUserFilter(ref: string, requesterId: string, field: string): string {
  if (ref.trim().toLowerCase() === "me") return requesterId;
  const id = parseUserRef(ref) ?? parseGroupRef(ref);
  if (!id) throw new HermesError("bad_request", `${field} "${ref}" is not a user: give ${USER_REF_HINT}.`);
  return id;
}

/**
 * An assignee must be a live person in the workspace, or an enabled user group: asked of Slack,
 * never of the model. Deleted users, bots, unknown ids and disabled groups are refused with a
 * sentence naming the id.
 */
export async function resolveAssignee(
  slack: Pick<SlackPort, "getUser" | "loadedUserGroups" | "directoryLoads">,
  ref: string,
  requesterId: string,
): Promise<string> {
  const id = parseUserFilter(ref, requesterId, "assignee");
  if (id.startsWith("S")) {
    const group = await userGroup(slack, id);
    if (!group)
      throw new HermesError("bad_request", `Cannot assign to ${id}: there is no such Slack user group.`);
    return id;
  }
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

/** An enabled user group by id, once the group list (one call) is in. */
async function userGroup(
  slack: Pick<SlackPort, "loadedUserGroups" | "directoryLoads">,
  id: string,
): Promise<SlackUserGroup | undefined> {
  const signal = AbortSignal.timeout(GROUP_WAIT_MS);
  for (;;) {
    const groups = slack.loadedUserGroups();
    const group = groups.items.find((g) => g.id === id);
    if (group || groups.complete) return group;
    if (groups.failure || signal.aborted)
      throw new HermesError(
        "tool_failed",
        `Could not check the user group ${id} in Slack just now${groups.failure ? ` (${groups.failure})` : ""}, so nothing was changed. Try again in a minute.`,
      );
    await untilAborted(slack.directoryLoads(), signal).catch(() => undefined);
  }
}
