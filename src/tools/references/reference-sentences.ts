import { HermesError } from "../../core/errors.ts";
import type { LoadedList, SlackChannel, SlackUser, SlackUserGroup } from "../slack-port.ts";
import { closeMatches } from "./close-matches.ts";
import type { DirectoryLists, Hits, NameReference, ReferenceKind, Wants } from "./match-reference.ts";
import { peopleIndex } from "./name-index.ts";
import { nameKey } from "./name-key.ts";

/** The id forms a refusal suggests instead of a name. */
const ID_HINT = "give the id (U… for a person, C… for a channel)";

const person = (u: SlackUser) => {
  const full = u.realName || u.displayName;
  return full && full.toLowerCase() !== u.name.toLowerCase() ? `@${u.name} (${full})` : `@${u.name}`;
};
const channelName = (c: SlackChannel) => `#${c.name}`;
const groupName = (g: SlackUserGroup) =>
  g.name.toLowerCase() !== g.handle.toLowerCase()
    ? `@${g.handle} (user group ${g.name})`
    : `@${g.handle} (user group)`;

export function noun(kind: ReferenceKind): string {
  return kind === "user" ? "person" : kind === "channel" ? "channel" : "person or channel";
}

export function wrongKind(written: string, kind: ReferenceKind, given?: "group"): HermesError {
  if (given === "group")
    return new HermesError(
      "bad_request",
      kind === "channel"
        ? `${written} is a user group; this needs a channel, e.g. #general.`
        : kind === "user"
          ? `${written} is a user group; this needs a person, e.g. @li.ming or their name.`
          : `${written} is a user group; this needs a person or a channel, e.g. @li.ming or #general.`,
    );
  return new HermesError(
    "bad_request",
    kind === "user"
      ? `${written} is a channel; this needs a person, e.g. @li.ming or their name.`
      : `${written} is a person; this needs a channel, e.g. #general.`,
  );
}

export function ambiguous(name: string, hits: Hits): HermesError {
  // A private channel is matched only by its exact name, so it is not named here: "a channel" is
  // all a person who wrote that name learns.
  const unnamed = hits.channels.filter((c) => c.isPrivate).length;
  const options = [
    ...hits.users.map(person),
    ...hits.groups.map(groupName),
    ...hits.channels.filter((c) => !c.isPrivate).map(channelName),
    ...(unnamed ? [unnamed === 1 ? "a channel" : `${unnamed} channels`] : []),
  ];
  const shown =
    options.slice(0, 3).join(", ") + (options.length > 3 ? ` and ${options.length - 3} more` : "");
  const named = hits.users.length + hits.groups.length;
  const how =
    hits.channels.length && named
      ? "Write @ before a person's name or # before a channel's."
      : hits.channels.length
        ? "Give the channel's id, or pick it from the # menu."
        : "Give their @handle, or pick them from the @ menu.";
  return new HermesError("bad_request", `"${name}" could mean ${shown}. ${how}`);
}

export function unknown(ref: NameReference, wants: Wants, lists: DirectoryLists): HermesError {
  const key = nameKey(ref.name);
  const candidates = [
    ...(wants.user
      ? peopleIndex(lists.users).keyed.flatMap(({ user, keys }) =>
          keys.map((k) => ({ key: k, item: person(user) })),
        )
      : []),
    ...(wants.group ? lists.groups.map((g) => ({ key: nameKey(g.handle), item: groupName(g) })) : []),
    // Never a private channel: the requester may not be in it, and its name is not theirs to learn.
    ...(wants.channel
      ? lists.channels
          .filter((c) => !c.isPrivate)
          .map((c) => ({ key: nameKey(c.name), item: channelName(c) }))
      : []),
  ];
  const near = closeMatches(key, candidates);
  const what =
    ref.kind === "channel_name"
      ? `No channel named #${ref.name}.`
      : ref.kind === "user_name"
        ? `No one named @${ref.name} is in this workspace.`
        : wants.user && wants.channel
          ? `No person or channel is named "${ref.name}".`
          : wants.user
            ? `No one named "${ref.name}" is in this workspace.`
            : `No channel named #${ref.name}.`;
  const hint = near.length
    ? ` Did you mean ${orList(near)}?`
    : wants.channel && !wants.user
      ? " Check the spelling, or pick the channel from the # menu."
      : " Check the spelling, or pick them from the @ menu.";
  return new HermesError("bad_request", `${what}${hint}`);
}

/** The lists a name is waiting for, as a person reads it: "its member list (4,200 people so far)". */
export function loadingLists(
  pending: Array<{ what: "user" | "channel" | "group"; list: LoadedList<unknown> }>,
) {
  const parts = pending.map(({ what, list }) => {
    const n = list.items.length.toLocaleString("en-US");
    if (what === "user") return `member list (${n} people so far)`;
    if (what === "channel") return `channel list (${n} channels so far)`;
    return "user group list";
  });
  const failure = pending.find((p) => p.list.failure)?.list.failure;
  return {
    text: `its ${andList(parts)} ${parts.length > 1 ? "are" : "is"} still loading`,
    ...(failure ? { failure } : {}),
  };
}

/** Why a name could not be looked up yet: the directory stopped on a failed page (it tries again). */
export class DirectoryNotLoaded extends Error {
  override readonly name = "DirectoryNotLoaded";
}

/**
 * A name not (yet) found while a list it may be in is still loading: never "no such person". Either
 * the wait for more pages ran out (`cause` is the timeout) or loading is stalled on a failed page.
 */
export function stillLoading(
  written: string,
  loading: { text: string; failure?: string },
  cause?: unknown,
): HermesError {
  const why = loading.failure ? `; Slack's last answer: ${loading.failure}` : "";
  const lead = cause
    ? `Looking up "${written}" in Slack took too long: ${loading.text}`
    : `Could not look up "${written}" in Slack yet: ${loading.text}${why}`;
  return new HermesError(
    "tool_failed",
    `${lead}, so nothing was done. Try again in a minute, or ${ID_HINT}.`,
    { cause: cause ?? new DirectoryNotLoaded(loading.failure ?? "loading") },
  );
}

/** An id check (`users.info` / `conversations.info`) that ran out of time: nothing is listed there. */
export function idCheckTooSlow(written: string, cause: unknown): HermesError {
  return new HermesError(
    "tool_failed",
    `Checking "${written}" with Slack took too long (Slack is slow to answer just now), so nothing was done. Try again in a minute.`,
    { cause },
  );
}

export function orList(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

function andList(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
