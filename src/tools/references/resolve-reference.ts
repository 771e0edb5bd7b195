import { errorMessage, HermesError, isHermesError } from "../../core/errors.ts";
import type { LoadedList, SlackPort } from "../slack-port.ts";
import {
  findHits,
  hitCount,
  type NameReference,
  type ReferenceKind,
  type Wants,
  wantsOf,
} from "./match-reference.ts";
import { idType, parseReference } from "./parse-reference.ts";
import {
  ambiguous,
  DirectoryNotLoaded,
  idCheckTooSlow,
  loadingLists,
  noun,
  stillLoading,
  unknown,
  wrongKind,
} from "./reference-sentences.ts";
import { untilAborted } from "./until-aborted.ts";

export type { ReferenceKind } from "./match-reference.ts";
export type Directory = Pick<
  SlackPort,
  "loadedUsers" | "loadedChannels" | "loadedUserGroups" | "directoryLoads" | "userById" | "channelById"
>;
export type Resolved = { type: "user" | "channel"; id: string };
/** What a reference that may be a user group resolves to. */
export type ResolvedOrGroup = Resolved | { type: "group"; id: string };

export interface ResolveOptions {
  /** Stops the look-up: a timeout is refused with a sentence, a cancelled run's reason is thrown as it is. */
  signal?: AbortSignal;
  /** A Slack user group (`@netops`, `<!subteam^S…>`, `S…`) is a valid answer where a person is. */
  groups?: boolean;
}

/** Longer than any Slack name or reference: refused before any look-up. */
const MAX_REFERENCE = 200;
const COMPLETE: LoadedList<never> = { items: [], complete: true };

/**
 * Turns what a person or model wrote into a Slack id, as Slack's own client does: `<@U…>`,
 * `<#C…|name>` and `<!subteam^S…>` are taken as they are; a raw id (`U…`, `W…`, `C…`, `G…`, `D…`) is
 * checked with one `users.info` or `conversations.info` (cached per id, never by listing the
 * workspace), a raw `S…` in the user groups; `#name`, `@name` and display or real names ("Li Ming",
 * "li.ming", "李明", any case or width) are looked up in the workspace directory. An unknown or
 * ambiguous name is refused with a sentence naming up to three close matches. Whether the target
 * may be used is not decided here: policy does that with the resolved id.
 *
 * The directory loads page by page in the background: a name found in what is loaded is answered at
 * once; a name not found while a list it may be in is still loading waits for more pages until
 * `signal` stops it (then a sentence says the list is still loading and how much is in), and is
 * refused as unknown only once every list it may be in is complete. A list stalled on a failed
 * page is said so at once.
 *
 * A private channel the bot is in is listed too, but the requester may not be: its name is never
 * offered as a suggestion or in an ambiguity list, and a name finds it only when written exactly.
 */
export async function resolveReference(
  directory: Directory,
  written: string,
  kind: ReferenceKind,
  options: ResolveOptions & { groups: true },
): Promise<ResolvedOrGroup>;
export async function resolveReference(
  directory: Directory,
  written: string,
  kind: ReferenceKind,
  options?: ResolveOptions & { groups?: false },
): Promise<Resolved>;
export async function resolveReference(
  directory: Directory,
  written: string,
  kind: ReferenceKind,
  { signal, groups = false }: ResolveOptions = {},
): Promise<ResolvedOrGroup> {
  if (written.length > MAX_REFERENCE) {
    throw new HermesError(
      "bad_request",
      `That ${noun(kind)} is ${written.length} characters long; no name is.`,
    );
  }
  const ref = parseReference(written);
  if (ref.kind === "user" || ref.kind === "channel" || ref.kind === "group")
    return expect(kind, groups, { type: ref.kind, id: ref.id }, written.trim());
  try {
    return await lookUp(directory, ref, kind, groups, written.trim(), signal);
  } catch (err) {
    if (err instanceof HermesError) throw err;
    if (signal?.aborted && err === signal.reason) throw err; // a cancelled run
    throw new HermesError(
      "tool_failed",
      `Could not look up "${written.trim()}" in Slack just now (${errorMessage(err)}), so nothing was done. Try again, or give the id (U… for a person, C… for a channel).`,
      { cause: err },
    );
  }
}

/** A look-up's answer a person can act on (unknown, ambiguous, still loading, too slow), not a Slack failure. */
export function isLookupRefusal(err: unknown): err is HermesError {
  return (
    isHermesError(err, "bad_request") ||
    (isHermesError(err) && (isTimeout(err.cause) || err.cause instanceof DirectoryNotLoaded))
  );
}

async function lookUp(
  directory: Directory,
  ref: NameReference | Extract<ReturnType<typeof parseReference>, { kind: "raw_id" }>,
  kind: ReferenceKind,
  groups: boolean,
  written: string,
  signal: AbortSignal | undefined,
): Promise<ResolvedOrGroup> {
  if (ref.kind === "channel_name" && kind === "user") throw wrongKind(written, "user");
  if (ref.kind === "user_name" && kind === "channel") throw wrongKind(written, "channel");
  const wants = wantsOf(ref, kind, groups);
  if (ref.kind === "raw_id" && idType(ref.id) !== "group") {
    const known = await knownId(directory, ref.id, wants, written, signal);
    if (known) return known;
  }
  const rawGroup = ref.kind === "raw_id" && idType(ref.id) === "group";
  for (;;) {
    const lists = {
      user: wants.user ? directory.loadedUsers() : COMPLETE,
      channel: wants.channel ? directory.loadedChannels() : COMPLETE,
      // A raw `S…` is looked up in the groups even where a group is not wanted, to say what it is.
      group: wants.group || rawGroup ? directory.loadedUserGroups() : COMPLETE,
    };
    const items = { users: lists.user.items, channels: lists.channel.items, groups: lists.group.items };
    if (rawGroup) {
      const group = items.groups.find((g) => g.id === ref.id);
      if (group) return expect(kind, groups, { type: "group", id: group.id }, written);
    }
    const hits = findHits(ref, wants, items);
    const count = hitCount(hits);
    if (count > 1) throw ambiguous(ref.name, hits);
    if (count === 1) {
      const [user] = hits.users;
      const [group] = hits.groups;
      if (user) return { type: "user", id: user.id };
      if (group) return { type: "group", id: group.id };
      return { type: "channel", id: hits.channels[0]!.id };
    }
    const pending = (["user", "channel", "group"] as const)
      .map((what) => ({ what, list: lists[what] as LoadedList<unknown> }))
      .filter(({ list }) => !list.complete);
    if (!pending.length) {
      // Unknown: a raw id Slack does not list (a private channel, a user in another workspace) is
      // passed on as an id, and policy or the tool says what is wrong with it.
      if (ref.kind === "raw_id" && (!rawGroup || groups))
        return expect(kind, groups, { type: idType(ref.id), id: ref.id }, written);
      throw unknown(ref, wants, items);
    }
    const loading = loadingLists(pending);
    if (loading.failure) throw stillLoading(written, loading);
    try {
      await untilAborted(directory.directoryLoads(), signal);
    } catch (err) {
      if (signal?.aborted && err === signal.reason && isTimeout(err))
        throw stillLoading(written, loading, err);
      throw err;
    }
  }
}

/**
 * An id Slack knows wins; an id-shaped word Slack does not know ("CEO") is then looked up as a
 * name. One `users.info` or `conversations.info` says which, so an id resolves even while the
 * workspace lists are loading or rate-limited.
 */
async function knownId(
  directory: Directory,
  id: string,
  wants: Wants,
  written: string,
  signal: AbortSignal | undefined,
): Promise<ResolvedOrGroup | undefined> {
  const type = idType(id);
  if ((type === "user" && !wants.user) || (type === "channel" && !wants.channel)) return undefined;
  try {
    const found =
      type === "user"
        ? await untilAborted(directory.userById(id), signal)
        : await untilAborted(directory.channelById(id), signal);
    return found ? { type: type === "user" ? "user" : "channel", id } : undefined;
  } catch (err) {
    if (signal?.aborted && err === signal.reason && isTimeout(err)) throw idCheckTooSlow(written, err);
    throw err;
  }
}

const isTimeout = (err: unknown) => err instanceof DOMException && err.name === "TimeoutError";

function expect(
  kind: ReferenceKind,
  groups: boolean,
  resolved: ResolvedOrGroup,
  written: string,
): ResolvedOrGroup {
  if (resolved.type === "group") {
    if (!groups || kind === "channel") throw wrongKind(written, kind, "group");
    return resolved;
  }
  if (kind !== "recipient" && resolved.type !== kind) throw wrongKind(written, kind);
  return resolved;
}
