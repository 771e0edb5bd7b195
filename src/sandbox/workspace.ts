import { FeedbackChoices } from "./feedback-choices.ts";
import { compareTs, createTsClock, type TsClock } from "./message-ts.ts";
import { SandboxUserGroups } from "./user-groups.ts";
import {
  attachReply,
  buildChannel,
  buildDm,
  buildUser,
  fileInfo,
  isReply,
  makeTombstone,
  type NewChannel,
  type NewUser,
  recountReplies,
} from "./workspace-records.ts";
import type { WorkspaceRecorder, WorkspaceState } from "./workspace-state.ts";
import {
  DEFAULT_BOT,
  DEFAULT_TEAM,
  type MessagePatch,
  type NewMessage,
  type SandboxBot,
  type SandboxChannel,
  type SandboxFile,
  type SandboxFileInfo,
  type SandboxMessage,
  type SandboxTeam,
  type SandboxUser,
  type SandboxView,
  STREAM_MAX_AGE_MS,
  type WorkspaceEvent,
  type WorkspaceListener,
  type WorkspaceOptions,
} from "./workspace-types.ts";

export type { NewChannel, NewUser } from "./workspace-records.ts";
export type { MessagePatch, NewMessage, SandboxBot, WorkspaceOptions } from "./workspace-types.ts";
export { DEFAULT_BOT, DEFAULT_TEAM, STREAM_MAX_AGE_MS } from "./workspace-types.ts";

/**
 * The state of one offline Slack workspace: people, channels, messages with threads, ephemerals,
 * files and App Home views. Everything returned is a copy; changes go through methods, which tell
 * subscribers what changed.
 */
export class Workspace {
  readonly team: SandboxTeam;
  readonly bot: SandboxBot;
  readonly now: () => number;
  readonly nextTs: TsClock;
  /**
   * Age after which a streamed message no longer takes appends or a stop
   * (`message_not_in_streaming_state`); settable so a test can cross it in milliseconds.
   */
  streamMaxAgeMs: number;
  private recorder: WorkspaceRecorder | undefined;
  private readonly feedbackChoices = new FeedbackChoices();
  private readonly users = new Map<string, SandboxUser>();
  private readonly channels = new Map<string, SandboxChannel>();
  private readonly messages = new Map<string, SandboxMessage[]>();
  private readonly ephemerals = new Map<string, SandboxMessage[]>();
  // The same messages by channel and ts: a lookup (every chat.update, reply and thread check) was a
  // scan of the channel's list, slower with every message a long-lived sandbox or a benchmark posts.
  private readonly messageByTs = new Map<string, Map<string, SandboxMessage>>();
  private readonly ephemeralByTs = new Map<string, Map<string, SandboxMessage>>();
  private readonly files = new Map<string, SandboxFile>();
  private readonly views = new Map<string, SandboxView>();
  private readonly listeners = new Set<WorkspaceListener>();
  /** The user groups (`@netops`); not kept across a restart. */
  readonly userGroups: SandboxUserGroups;

  constructor(options: WorkspaceOptions = {}) {
    this.team = options.team ?? DEFAULT_TEAM;
    this.bot = options.bot ?? DEFAULT_BOT;
    this.now = options.now ?? Date.now;
    this.nextTs = createTsClock(this.now);
    this.streamMaxAgeMs = options.streamMaxAgeMs ?? STREAM_MAX_AGE_MS;
    this.userGroups = new SandboxUserGroups(this.team.id, () => this.seconds());
  }

  /**
   * Hands every later change, as it happens, to `recorder` (a journal); only one at a time. Ephemeral
   * messages are not recorded (Slack drops them on reload too).
   */
  recordChanges(recorder: WorkspaceRecorder | undefined): void {
    this.recorder = recorder;
  }

  /**
   * What a restart keeps (see `WorkspaceState`), without the assistant threads (kept beside it). The
   * records themselves, not copies: serialize them at once.
   */
  exportState(): Omit<WorkspaceState, "assistantThreads"> {
    return {
      version: 1,
      lastTs: this.nextTs.last(),
      users: [...this.users.values()],
      channels: [...this.channels.values()],
      messages: [...this.messages.values()].flat(),
      files: [...this.files.values()].map(fileInfo),
      views: [...this.views].map(([user, view]) => ({ user, view })),
      feedback: this.feedbackChoices.entries(),
    };
  }

  /**
   * Fills an empty workspace from a kept state (`bytesOf` gives a file's stored bytes); the clock
   * continues after the state's newest ts. Tells no subscriber and records nothing.
   */
  importState(state: Omit<WorkspaceState, "assistantThreads">, bytesOf: (id: string) => Buffer | undefined) {
    for (const user of state.users) this.users.set(user.id, structuredClone(user));
    for (const channel of state.channels) this.channels.set(channel.id, structuredClone(channel));
    for (const stored of state.messages) {
      const message = structuredClone(stored);
      const list = this.messages.get(message.channel) ?? [];
      list.push(message);
      this.messages.set(message.channel, list);
      indexed(this.messageByTs, message.channel).set(message.ts, message);
    }
    for (const info of state.files) {
      const bytes = info.uploaded ? bytesOf(info.id) : undefined;
      this.files.set(info.id, {
        ...structuredClone(info),
        bytes: bytes ?? Buffer.alloc(0),
        uploaded: Boolean(bytes),
      });
    }
    for (const { user, view } of state.views) this.views.set(user, structuredClone(view));
    this.feedbackChoices.restore(state.feedback);
    this.nextTs.advancePast(state.lastTs);
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: WorkspaceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  addUser(input: NewUser): SandboxUser {
    const user = buildUser(input, this.team);
    this.users.set(user.id, user);
    this.recorder?.({ kind: "user", user });
    return structuredClone(user);
  }

  addChannel(input: NewChannel): SandboxChannel {
    const channel = buildChannel(input, this.seconds());
    this.channels.set(channel.id, channel);
    this.recorder?.({ kind: "channel", channel });
    return structuredClone(channel);
  }

  /** Adds many people and channels at once (a large workspace's seed), returning no copies. */
  addMany(input: { users?: NewUser[]; channels?: NewChannel[] }): void {
    for (const u of input.users ?? []) {
      const user = buildUser(u, this.team);
      this.users.set(user.id, user);
      this.recorder?.({ kind: "user", user });
    }
    for (const c of input.channels ?? []) {
      const channel = buildChannel(c, this.seconds());
      this.channels.set(channel.id, channel);
      this.recorder?.({ kind: "channel", channel });
    }
  }

  /** The bot's DM with `userId` (`U0USER1` → `D0USER1`), created on first use. */
  openDm(userId: string): SandboxChannel {
    const existing = [...this.channels.values()].find((c) => c.is_im && c.user === userId);
    if (existing) return structuredClone(existing);
    const channel = buildDm(userId, this.bot.userId, this.seconds());
    this.channels.set(channel.id, channel);
    this.recorder?.({ kind: "channel", channel });
    return structuredClone(channel);
  }

  joinChannel(channelId: string, userId: string): void {
    const channel = this.channels.get(channelId);
    if (channel && !channel.members.includes(userId)) {
      channel.members.push(userId);
      this.recorder?.({ kind: "channel", channel });
    }
  }

  /** A member leaves (or is removed from) a channel, as `conversations.kick` would do. */
  leaveChannel(channelId: string, userId: string): void {
    const channel = this.channels.get(channelId);
    if (channel?.members.includes(userId)) {
      channel.members = channel.members.filter((id) => id !== userId);
      this.recorder?.({ kind: "channel", channel });
    }
  }

  /** A person's name or profile changes (what Slack then tells apps with `user_change`). */
  updateUser(id: string, patch: Partial<Omit<NewUser, "id">>): SandboxUser | undefined {
    const user = this.users.get(id);
    if (!user) return undefined;
    const changed = buildUser({ ...fromRecord(user), ...patch, id }, this.team);
    this.users.set(id, changed);
    this.recorder?.({ kind: "user", user: changed });
    return structuredClone(changed);
  }

  /** A channel gets a new name (what Slack then tells apps with `channel_rename`). */
  renameChannel(id: string, name: string): SandboxChannel | undefined {
    const channel = this.channels.get(id);
    if (!channel || channel.is_im) return undefined;
    channel.name = name;
    this.recorder?.({ kind: "channel", channel });
    return structuredClone(channel);
  }

  /**
   * Every person, as stored (not copies: read them, never change them): `users.list` pages through
   * 20,000 people without copying them all for every page.
   */
  userRecords(): readonly SandboxUser[] {
    return [...this.users.values()];
  }

  /** Every channel and DM, as stored (not copies), for listing. */
  channelRecords(): readonly SandboxChannel[] {
    return [...this.channels.values()];
  }

  getUser(id: string): SandboxUser | undefined {
    return copy(this.users.get(id));
  }

  listUsers(): SandboxUser[] {
    return [...this.users.values()].map((u) => structuredClone(u));
  }

  getChannel(id: string): SandboxChannel | undefined {
    return copy(this.channels.get(id));
  }

  findChannelByName(name: string): SandboxChannel | undefined {
    const bare = name.replace(/^#/, "");
    return copy([...this.channels.values()].find((c) => !c.is_im && c.name === bare));
  }

  listChannels(): SandboxChannel[] {
    return [...this.channels.values()].map((c) => structuredClone(c));
  }

  isMember(channelId: string, userId: string): boolean {
    return this.channels.get(channelId)?.members.includes(userId) ?? false;
  }

  /** Posts a message, or a thread reply when `threadTs` names a message of the channel. */
  post(input: NewMessage): SandboxMessage {
    const message = this.buildMessage(input);
    const parent = input.threadTs ? this.threadParent(input.channel, input.threadTs) : undefined;
    if (parent) attachReply(parent, message);
    const list = this.messages.get(input.channel) ?? [];
    list.push(message);
    this.messages.set(input.channel, list);
    indexed(this.messageByTs, input.channel).set(message.ts, message);
    this.recorder?.({ kind: "message", message });
    if (parent) this.recorder?.({ kind: "message", message: parent });
    this.emit({ type: "message_posted", channel: input.channel, message: structuredClone(message) });
    return structuredClone(message);
  }

  /** An ephemeral message: only `visibleTo` sees it, and it is never in history or replies. */
  postEphemeral(input: NewMessage & { visibleTo: string }): SandboxMessage {
    const { visibleTo, ...rest } = input;
    const message = { ...this.buildMessage(rest), ephemeral_for: visibleTo };
    const parent = rest.threadTs ? this.threadParent(rest.channel, rest.threadTs) : undefined;
    if (parent) message.thread_ts = parent.ts;
    const list = this.ephemerals.get(rest.channel) ?? [];
    list.push(message);
    this.ephemerals.set(rest.channel, list);
    indexed(this.ephemeralByTs, rest.channel).set(message.ts, message);
    this.emit({
      type: "ephemeral_posted",
      channel: rest.channel,
      user: visibleTo,
      message: structuredClone(message),
    });
    return structuredClone(message);
  }

  /** A message by its ts; ephemeral ones only with `includeEphemeral`. */
  getMessage(
    channel: string,
    ts: string,
    options: { includeEphemeral?: boolean } = {},
  ): SandboxMessage | undefined {
    const found =
      this.messageByTs.get(channel)?.get(ts) ??
      (options.includeEphemeral ? this.ephemeralByTs.get(channel)?.get(ts) : undefined);
    return copy(found);
  }

  updateMessage(channel: string, ts: string, patch: MessagePatch): SandboxMessage | undefined {
    const message = this.messageByTs.get(channel)?.get(ts) ?? this.ephemeralByTs.get(channel)?.get(ts);
    if (!message) return undefined;
    const previous = structuredClone(message);
    if (patch.text !== undefined) message.text = patch.text;
    if (patch.blocks !== undefined) message.blocks = patch.blocks;
    if (patch.metadata !== undefined) message.metadata = patch.metadata;
    if (patch.stream !== undefined) message.stream = structuredClone(patch.stream);
    if (patch.editedBy) message.edited = { user: patch.editedBy, ts: this.nextTs() };
    if (message.ephemeral_for === undefined) this.recorder?.({ kind: "message", message });
    this.emit({ type: "message_updated", channel, message: structuredClone(message), previous });
    return structuredClone(message);
  }

  /** Deletes a message; a thread parent with replies becomes a tombstone, as in Slack. */
  deleteMessage(channel: string, ts: string): SandboxMessage | undefined {
    const ephemeral = !this.messageByTs.get(channel)?.has(ts);
    const index = ephemeral ? this.ephemeralByTs : this.messageByTs;
    const list = (ephemeral ? this.ephemerals : this.messages).get(channel);
    const message = index.get(channel)?.get(ts);
    if (!list || !message) return undefined;
    const record = ephemeral ? undefined : this.recorder;
    if (message.reply_count && !isReply(message)) {
      makeTombstone(message);
      record?.({ kind: "message", message });
    } else {
      list.splice(list.indexOf(message), 1);
      index.get(channel)?.delete(ts);
      record?.({ kind: "message_removed", channel, ts });
      const parent = isReply(message) ? index.get(channel)?.get(message.thread_ts!) : undefined;
      if (parent) {
        recountReplies(
          parent,
          list.filter((m) => m.thread_ts === parent.ts && m.ts !== parent.ts),
        );
        record?.({ kind: "message", message: parent });
      }
    }
    this.emit({ type: "message_deleted", channel, ts, message: structuredClone(message) });
    return structuredClone(message);
  }

  /** Top-level messages of a channel, oldest first (no replies, no ephemerals). */
  history(channel: string): SandboxMessage[] {
    return (this.messages.get(channel) ?? []).filter((m) => !isReply(m)).map((m) => structuredClone(m));
  }

  /** A thread, parent first then replies oldest first; undefined if `ts` is no message of the channel. */
  replies(channel: string, ts: string): SandboxMessage[] | undefined {
    const parent = this.threadParent(channel, ts);
    if (!parent) return undefined;
    return (this.messages.get(channel) ?? [])
      .filter((m) => m.ts === parent.ts || m.thread_ts === parent.ts)
      .sort((a, b) => compareTs(a.ts, b.ts))
      .map((m) => structuredClone(m));
  }

  /** Ephemeral messages in a channel, optionally only those `user` can see. */
  ephemeralMessages(channel: string, user?: string): SandboxMessage[] {
    return (this.ephemerals.get(channel) ?? [])
      .filter((m) => user === undefined || m.ephemeral_for === user)
      .map((m) => structuredClone(m));
  }

  /** Adds a file; one that comes with its bytes (`uploaded`) is recorded with them. */
  addFile(file: SandboxFile): SandboxFileInfo {
    this.files.set(file.id, file);
    const bytes = file.uploaded && file.bytes.length > 0 ? { bytes: file.bytes } : {};
    this.recorder?.({ kind: "file", file: fileInfo(file), ...bytes });
    return fileInfo(file);
  }

  /** The file with its bytes (not a copy: bytes can be large). */
  getFile(id: string): SandboxFile | undefined {
    return this.files.get(id);
  }

  /** Stores the bytes sent to a file's upload URL. */
  storeFileBytes(id: string, bytes: Buffer): SandboxFileInfo | undefined {
    const file = this.files.get(id);
    if (!file) return undefined;
    Object.assign(file, { bytes, size: bytes.length, uploaded: true });
    this.recorder?.({ kind: "file", file: fileInfo(file), bytes });
    return fileInfo(file);
  }

  /** Marks a file shared into a channel, e.g. by `files.completeUploadExternal`. */
  shareFile(id: string, channel: string): SandboxFileInfo | undefined {
    const file = this.files.get(id);
    if (!file) return undefined;
    if (!file.channels.includes(channel)) file.channels.push(channel);
    this.recorder?.({ kind: "file", file: fileInfo(file) });
    this.emit({ type: "file_uploaded", file: fileInfo(file) });
    return fileInfo(file);
  }

  /** The messages of a conversation (replies included) that carry file `fileId`, as stored: read only. */
  messagesSharingFile(channel: string, fileId: string): readonly SandboxMessage[] {
    return (this.messages.get(channel) ?? []).filter((m) => m.files?.some((f) => f.id === fileId));
  }

  publishView(user: string, view: SandboxView): SandboxView {
    this.views.set(user, structuredClone(view));
    this.recorder?.({ kind: "view", user, view });
    this.emit({ type: "view_published", user, view: structuredClone(view) });
    return structuredClone(view);
  }

  getView(user: string): SandboxView | undefined {
    return copy(this.views.get(user));
  }

  /**
   * A person's click on a 👍/👎 side (`value`): selects it, or unselects it when it was selected, as
   * their Slack client shows it; tells subscribers. Returns the value now selected, or null.
   */
  clickFeedback(
    at: { channel: string; ts: string; user: string; actionId: string },
    value: string,
  ): string | null {
    const selected = this.feedbackChoices.click(at, value);
    this.recorder?.({
      kind: "feedback",
      selection: {
        channel: at.channel,
        ts: at.ts,
        user: at.user,
        selected: this.feedbackChoices.of(at.channel, at.ts, at.user) ?? {},
      },
    });
    this.emit({ type: "feedback_selected", channel: at.channel, ts: at.ts, user: at.user });
    return selected;
  }

  /** The 👍/👎 values `user` has selected on a message, by `action_id`; undefined when none. */
  feedbackSelected(channel: string, ts: string, user: string): Record<string, string> | undefined {
    return this.feedbackChoices.of(channel, ts, user);
  }

  private buildMessage(input: NewMessage): SandboxMessage {
    return {
      type: "message",
      ts: this.nextTs(),
      channel: input.channel,
      team: this.team.id,
      text: input.text,
      ...(input.user ? { user: input.user } : {}),
      ...(input.botId ? { bot_id: input.botId, app_id: this.bot.appId } : {}),
      ...(input.subtype ? { subtype: input.subtype } : {}),
      ...(input.blocks ? { blocks: input.blocks } : {}),
      ...(input.files ? { files: input.files } : {}),
      ...(input.upload ? { upload: true, display_as_bot: false } : {}),
      ...(input.clientMsgId ? { client_msg_id: input.clientMsgId } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      ...(input.stream ? { stream: structuredClone(input.stream) } : {}),
    };
  }

  private threadParent(channel: string, ts: string): SandboxMessage | undefined {
    const byTs = this.messageByTs.get(channel);
    const message = byTs?.get(ts);
    return message && isReply(message) ? byTs?.get(message.thread_ts!) : message;
  }

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private emit(event: WorkspaceEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** A channel's ts index, made on first use. */
function indexed(byChannel: Map<string, Map<string, SandboxMessage>>, channel: string) {
  let byTs = byChannel.get(channel);
  if (!byTs) {
    byTs = new Map();
    byChannel.set(channel, byTs);
  }
  return byTs;
}

function copy<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}

/** The `NewUser` a stored person was built from (so a patch keeps the rest). */
function fromRecord(user: SandboxUser): NewUser {
  return {
    id: user.id,
    name: user.name,
    realName: user.real_name,
    displayName: user.profile.display_name,
    tz: user.tz,
    isAdmin: user.is_admin,
    isBot: user.is_bot,
    ...(user.profile.bot_id ? { botId: user.profile.bot_id } : {}),
    deleted: user.deleted,
  };
}
