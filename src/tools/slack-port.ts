/**
 * What tools may do in Slack, and nothing more. The Slack app implements it over the Web API
 * (`src/slack/web-slack-port.ts`); tools never import Slack themselves.
 */
export interface SlackUser {
  id: string;
  name: string;
  realName?: string;
  /** The name shown in Slack's client (`profile.display_name`), when set. */
  displayName?: string;
  tz?: string;
  isBot: boolean;
  deleted: boolean;
}

/** A channel as the workspace directory lists it (public ones, and private ones the bot is in). */
export interface SlackChannel {
  id: string;
  name: string;
  isPrivate: boolean;
}

/** A channel as `conversations.info` describes it: what it says about itself is untrusted text. */
export interface SlackChannelInfo extends SlackChannel {
  topic: string;
  purpose: string;
}

/** A Slack user group (`@netops`): mentioned as `<!subteam^S…>`, it notifies every member. */
export interface SlackUserGroup {
  id: string;
  /** What people write after `@`: `netops`. */
  handle: string;
  name: string;
}

/** One list of the workspace directory as far as it has loaded. */
export interface LoadedList<T> {
  items: readonly T[];
  /** Every page is in (and kept fresh since): a name missing from `items` is not in the workspace. */
  complete: boolean;
  /** While not complete: Slack's answer to the last page, when it failed (it is asked again later). */
  failure?: string;
}

export interface SlackPort {
  /** Posts as the bot. `channel` is a channel id or a user id (then the DM with that user). Unfurling is off. */
  postMessage(input: {
    channel: string;
    text: string;
    threadTs?: string;
    /** Block Kit blocks shown instead of `text` (which stays the notification fallback). */
    blocks?: unknown[];
  }): Promise<{ channel: string; ts: string }>;
  /** Uploads a file into a channel or thread (files.getUploadURLExternal + files.completeUploadExternal). */
  uploadFile(input: {
    channel: string;
    threadTs?: string;
    filename: string;
    title?: string;
    content: Buffer | string;
    initialComment?: string;
  }): Promise<{ fileId: string }>;
  /** Is the user a member of the channel? Asked of Slack each time (never cached), never of the model. */
  isMember(channelId: string, userId: string): Promise<boolean>;
  /** A user's profile; may be cached briefly unless `fresh` (a permission check asks fresh). */
  getUser(userId: string, options?: { fresh?: boolean }): Promise<SlackUser | undefined>;
  /**
   * The people the workspace directory has loaded so far (`users.list`, page by page in the
   * background at Slack's tier-2 pace, then kept fresh by events), deactivated ones included. Never
   * waits for Slack: the first read starts the loading. For turning names into ids; never used to
   * decide a permission.
   */
  loadedUsers(): LoadedList<SlackUser>;
  /** The channels names can refer to (`conversations.list`, archived ones left out), loaded likewise. */
  loadedChannels(): LoadedList<SlackChannel>;
  /** The workspace's user groups (`usergroups.list`, one call), loaded likewise; disabled ones left out. */
  loadedUserGroups(): LoadedList<SlackUserGroup>;
  /**
   * Settles the next time the directory loads more: a page, the end of a list, or a failed page
   * (then `failure` says why). Starts nothing by itself; pair it with a read of the lists.
   */
  directoryLoads(): Promise<void>;
  /**
   * The user behind an id a person or model wrote (`users.info`, one call, never a list), deactivated
   * ones included; undefined when Slack says no such user. Cached per id for minutes (an unknown id
   * more briefly); never used to decide a permission: `getUser` with `fresh` is.
   */
  userById(userId: string): Promise<SlackUser | undefined>;
  /**
   * The channel behind an id a person or model wrote (`conversations.info`), cached likewise;
   * undefined when Slack does not show it to the bot (unknown, or private without the bot).
   */
  channelById(channelId: string): Promise<SlackChannel | undefined>;
  /**
   * One channel's name, topic and purpose (`conversations.info`, asked each time); undefined when
   * Slack does not show it to the bot (unknown, or private without the bot). Says nothing about
   * whether the requester may see it: ask `isMember`.
   */
  getChannel(channelId: string): Promise<SlackChannelInfo | undefined>;
}

/** `U…`, `W…`, `<@U…>` or `<@U…|name>` → the user id; undefined for anything else. */
export function parseUserRef(ref: string): string | undefined {
  const m = /^\s*(?:<@([UW][A-Z0-9]+)(?:\|[^>]*)?>|@?([UW][A-Z0-9]{2,}))\s*$/.exec(ref);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** `C…`, `G…`, `<#C…>` or `<#C…|name>` → the channel id; undefined for anything else. */
export function parseChannelRef(ref: string): string | undefined {
  const m = /^\s*(?:<#([CG][A-Z0-9]+)(?:\|[^>]*)?>|#?([CG][A-Z0-9]{2,}))\s*$/.exec(ref);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** `S…` or `<!subteam^S…>` / `<!subteam^S…|@handle>` → the user group id; undefined for anything else. */
export function parseGroupRef(ref: string): string | undefined {
  const m = /^\s*(?:<!subteam\^(S[A-Z0-9]+)(?:\|[^>]*)?>|@?(S[A-Z0-9]{2,}))\s*$/.exec(ref);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** `&`, `<`, `>` escaped as Slack wants for untrusted text (mentions and links become plain text). */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
