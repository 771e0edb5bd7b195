import { errorMessage, HermesError } from "../../core/errors.ts";
import type { SlackChannel, SlackPort, SlackUser } from "../slack-port.ts";
import { closeMatches } from "./close-matches.ts";
import { nameKey } from "./name-key.ts";
import { type ParsedReference, parseReference } from "./parse-reference.ts";
import { untilAborted } from "./until-aborted.ts";

export type Directory = Pick<SlackPort, "listUsers" | "listChannels" | "userById" | "channelById">;
/** What the argument may name: a person, a channel, or either (a message's destination). */
export type ReferenceKind = "user" | "channel" | "recipient";
export type Resolved = { type: "user" | "channel"; id: string };

/** Longer than any Slack name or reference: refused before any look-up. */
const MAX_REFERENCE = 200;

/**
 * Turns what a person or model wrote into a Slack id, as Slack's own client does: `<@U…>` and
 * `<#C…|name>` are taken as they are; a raw id (`U…`, `C…`) is checked with one `users.info` or
 * `conversations.info` (cached per id, never by listing the workspace); `#name`, `@name`
 * and display or real names ("Li Ming", "li.ming", "李明", any case or width) are looked up in the
 * workspace (`users.list` / `conversations.list`, cached). An unknown or ambiguous name is refused
 * with a sentence naming up to three close matches. Whether the target may be used is not decided
 * here: policy does that with the resolved id.
 *
 * A private channel the bot is in is listed too, but the requester may not be: its name is never
 * offered as a suggestion or in an ambiguity list, and a name finds it only when written exactly
 * (`#exec-layoffs`, not `#exec-layoff` or `exec layoffs`).
 *
 * A name missing from a stale list waits for that list's one refresh and is looked up again once.
 * `signal` (the run's, with a timeout) stops the wait: a timeout is refused with a sentence, a
 * cancelled run's abort reason is thrown as it is.
 */
export async function resolveReference(
  directory: Directory,
  written: string,
  kind: ReferenceKind,
  { signal }: { signal?: AbortSignal } = {},
): Promise<Resolved> {
  if (written.length > MAX_REFERENCE) {
    throw new HermesError(
      "bad_request",
      `That ${noun(kind)} is ${written.length} characters long; no name is.`,
    );
  }
  const ref = parseReference(written);
  if (ref.kind === "user" || ref.kind === "channel")
    return expect(kind, { type: ref.kind, id: ref.id }, written);
  try {
    return await lookUp(directory, ref, kind, written, signal);
  } catch (err) {
    if (err instanceof HermesError) throw err;
    if (signal?.aborted && err === signal.reason) {
      if (!isTimeout(err)) throw err;
      throw new HermesError(
        "tool_failed",
        `Looking up "${written.trim()}" in Slack took too long (its member and channel lists are still loading), so nothing was done. Try again in a minute, or give the id (U… for a person, C… for a channel).`,
        { cause: err },
      );
    }
    throw new HermesError(
      "tool_failed",
      `Could not look up "${written.trim()}" in Slack just now (${errorMessage(err)}), so nothing was done. Try again, or give the id (U… for a person, C… for a channel).`,
      { cause: err },
    );
  }
}

async function lookUp(
  directory: Directory,
  ref: Exclude<ParsedReference, { kind: "user" | "channel" }>,
  kind: ReferenceKind,
  written: string,
  signal: AbortSignal | undefined,
): Promise<Resolved> {
  const wantsUser = kind !== "channel" && ref.kind !== "channel_name";
  const wantsChannel = kind !== "user" && ref.kind !== "user_name";
  if (ref.kind === "channel_name" && kind === "user") throw wrongKind(written, "user");
  if (ref.kind === "user_name" && kind === "channel") throw wrongKind(written, "channel");
  if (ref.kind === "raw_id") {
    const known = await knownId(directory, ref.id, wantsUser, wantsChannel, signal);
    if (known) return known;
  }
  const lists = (read: { fresh?: boolean }) =>
    untilAborted(
      Promise.all([
        wantsUser ? directory.listUsers(read) : Promise.resolve(NONE),
        wantsChannel ? directory.listChannels(read) : Promise.resolve(NONE),
      ]),
      signal,
    );
  const [users, channels] = await lists({});
  const found = match(ref, kind, written, users, channels);
  if (found) return found;
  // A miss: a stale list may be missing a new person or channel. Its one refresh is waited for and
  // the name looked up once more; a list still within its time is not fetched again.
  const [freshUsers, freshChannels] = await lists({ fresh: true });
  if (freshUsers !== users || freshChannels !== channels) {
    const again = match(ref, kind, written, freshUsers, freshChannels);
    if (again) return again;
  }
  throw unknown(ref, kind, nameKey(ref.name), keyedPeople(freshUsers), freshChannels);
}

const NONE: never[] = [];

/**
 * An id Slack knows wins; an id-shaped word Slack does not know ("CEO") is then looked up as a
 * name. One `users.info` or `conversations.info` says which, so an id resolves even while the
 * workspace lists are slow or rate-limited.
 */
async function knownId(
  directory: Directory,
  id: string,
  wantsUser: boolean,
  wantsChannel: boolean,
  signal: AbortSignal | undefined,
): Promise<Resolved | undefined> {
  if (/^[UW]/.test(id)) {
    if (!wantsUser) return undefined;
    return (await untilAborted(directory.userById(id), signal)) ? { type: "user", id } : undefined;
  }
  if (!wantsChannel) return undefined;
  return (await untilAborted(directory.channelById(id), signal)) ? { type: "channel", id } : undefined;
}

const isTimeout = (err: unknown) => err instanceof DOMException && err.name === "TimeoutError";

/** The id the name stands for, a refusal when it is ambiguous, or undefined when nothing matches. */
function match(
  ref: Exclude<ParsedReference, { kind: "user" | "channel" }>,
  kind: ReferenceKind,
  written: string,
  users: SlackUser[],
  channels: SlackChannel[],
): Resolved | undefined {
  const wantsUser = kind !== "channel" && ref.kind !== "channel_name";
  const wantsChannel = kind !== "user" && ref.kind !== "user_name";
  const people = users.filter((u) => !u.deleted);
  const name = ref.name;
  const key = nameKey(name);
  // A handle is unique in Slack: written exactly, it wins over display and real names that share its key.
  const handle = name.normalize("NFKC").toLowerCase();
  const byHandle = wantsUser ? people.filter((u) => u.name.toLowerCase() === handle) : [];
  const keyed = wantsUser ? keyedPeople(users) : [];
  const userHits =
    byHandle.length === 1 ? byHandle : keyed.filter((k) => k.keys.includes(key)).map((k) => k.user);
  const channelHits = wantsChannel
    ? channels.filter((c) => (c.isPrivate ? c.name === handle : nameKey(c.name) === key))
    : [];
  if (userHits.length + channelHits.length === 1) {
    return userHits[0] ? { type: "user", id: userHits[0].id } : { type: "channel", id: channelHits[0]!.id };
  }
  if (userHits.length + channelHits.length > 1) throw ambiguous(name, userHits, channelHits);
  // Unknown: a raw id Slack does not list (a private channel, a user in another workspace) is passed
  // on as an id, and policy or the tool says what is wrong with it.
  if (ref.kind === "raw_id") {
    const type = /^[UW]/.test(ref.id) ? "user" : "channel";
    return expect(kind, { type, id: ref.id }, written);
  }
  return undefined;
}

function expect(kind: ReferenceKind, resolved: Resolved, written: string): Resolved {
  if (kind !== "recipient" && resolved.type !== kind) throw wrongKind(written.trim(), kind);
  return resolved;
}

/**
 * Active people with their name keys. Memoized per list: the directory hands out the same cached
 * list for a minute, so a burst of look-ups normalizes a big workspace's names once, not per call.
 */
const keyedLists = new WeakMap<readonly SlackUser[], Array<{ user: SlackUser; keys: string[] }>>();
function keyedPeople(users: readonly SlackUser[]): Array<{ user: SlackUser; keys: string[] }> {
  let keyed = keyedLists.get(users);
  if (!keyed) {
    keyed = users.filter((u) => !u.deleted).map((user) => ({ user, keys: userKeys(user) }));
    keyedLists.set(users, keyed);
  }
  return keyed;
}

function userKeys(u: SlackUser): string[] {
  return [u.name, u.displayName, u.realName].filter((n): n is string => Boolean(n)).map(nameKey);
}

const person = (u: SlackUser) => {
  const full = u.realName || u.displayName;
  return full && full.toLowerCase() !== u.name.toLowerCase() ? `@${u.name} (${full})` : `@${u.name}`;
};
const channelName = (c: SlackChannel) => `#${c.name}`;

function noun(kind: ReferenceKind): string {
  return kind === "user" ? "person" : kind === "channel" ? "channel" : "person or channel";
}

function wrongKind(written: string, kind: ReferenceKind): HermesError {
  return new HermesError(
    "bad_request",
    kind === "user"
      ? `${written} is a channel; this needs a person, e.g. @li.ming or their name.`
      : `${written} is a person; this needs a channel, e.g. #general.`,
  );
}

function ambiguous(name: string, users: SlackUser[], channels: SlackChannel[]): HermesError {
  // A private channel is matched only by its exact name, so it is not named here: "a channel" is
  // all a person who wrote that name learns.
  const unnamed = channels.filter((c) => c.isPrivate).length;
  const options = [
    ...users.map(person),
    ...channels.filter((c) => !c.isPrivate).map(channelName),
    ...(unnamed ? [unnamed === 1 ? "a channel" : `${unnamed} channels`] : []),
  ];
  const shown =
    options.slice(0, 3).join(", ") + (options.length > 3 ? ` and ${options.length - 3} more` : "");
  const how =
    channels.length && users.length
      ? "Write @ before a person's name or # before a channel's."
      : channels.length
        ? "Give the channel's id, or pick it from the # menu."
        : "Give their @handle, or pick them from the @ menu.";
  return new HermesError("bad_request", `"${name}" could mean ${shown}. ${how}`);
}

function unknown(
  ref: Exclude<ParsedReference, { kind: "user" | "channel" }>,
  kind: ReferenceKind,
  key: string,
  users: Array<{ user: SlackUser; keys: string[] }>,
  channels: SlackChannel[],
): HermesError {
  const wantsUser = kind !== "channel" && ref.kind !== "channel_name";
  const wantsChannel = kind !== "user" && ref.kind !== "user_name";
  const candidates = [
    ...(wantsUser
      ? users.flatMap(({ user, keys }) => keys.map((k) => ({ key: k, item: person(user) })))
      : []),
    // Never a private channel: the requester may not be in it, and its name is not theirs to learn.
    ...(wantsChannel
      ? channels.filter((c) => !c.isPrivate).map((c) => ({ key: nameKey(c.name), item: channelName(c) }))
      : []),
  ];
  const near = closeMatches(key, candidates);
  const what =
    ref.kind === "channel_name"
      ? `No channel named #${ref.name}.`
      : ref.kind === "user_name"
        ? `No one named @${ref.name} is in this workspace.`
        : wantsUser && wantsChannel
          ? `No person or channel is named "${ref.name}".`
          : wantsUser
            ? `No one named "${ref.name}" is in this workspace.`
            : `No channel named #${ref.name}.`;
  const hint = near.length
    ? ` Did you mean ${orList(near)}?`
    : wantsChannel && !wantsUser
      ? " Check the spelling, or pick the channel from the # menu."
      : " Check the spelling, or pick them from the @ menu.";
  return new HermesError("bad_request", `${what}${hint}`);
}

function orList(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}
