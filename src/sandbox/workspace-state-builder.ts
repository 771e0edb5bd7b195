import type { AssistantThread } from "./assistant-threads.ts";
import { compareTs } from "./message-ts.ts";
import { isReply } from "./workspace-records.ts";
import type { FeedbackSelection, WorkspaceChange, WorkspaceState } from "./workspace-state.ts";
import type {
  SandboxChannel,
  SandboxFileInfo,
  SandboxMessage,
  SandboxUser,
  SandboxView,
} from "./workspace-types.ts";

/** How much a kept workspace holds: each channel's newest threads (top-level messages with their replies). */
export const KEPT_THREADS_PER_CHANNEL = 2_000;

/**
 * A kept state with journaled changes applied on top (each change is the record as it became, so
 * applying one twice changes nothing), then bounded: each channel keeps its newest
 * `threadsPerChannel` top-level messages with their replies, and only the files, selections and
 * assistant threads of messages still kept.
 */
export class WorkspaceStateBuilder {
  private readonly users = new Map<string, SandboxUser>();
  private readonly channels = new Map<string, SandboxChannel>();
  private readonly messages = new Map<string, SandboxMessage>();
  private readonly files = new Map<string, SandboxFileInfo>();
  private readonly views = new Map<string, SandboxView>();
  private readonly feedback = new Map<string, FeedbackSelection>();
  private readonly threads = new Map<string, AssistantThread>();
  private lastTs = "0.000000";

  constructor(state?: WorkspaceState) {
    if (!state) return;
    this.lastTs = state.lastTs;
    for (const user of state.users) this.apply({ kind: "user", user });
    for (const channel of state.channels) this.apply({ kind: "channel", channel });
    for (const message of state.messages) this.apply({ kind: "message", message });
    for (const file of state.files) this.apply({ kind: "file", file });
    for (const { user, view } of state.views) this.apply({ kind: "view", user, view });
    for (const selection of state.feedback) this.apply({ kind: "feedback", selection });
    for (const thread of state.assistantThreads) this.apply({ kind: "assistant_thread", thread });
  }

  apply(change: WorkspaceChange): void {
    switch (change.kind) {
      case "user":
        this.users.set(change.user.id, change.user);
        break;
      case "channel":
        this.channels.set(change.channel.id, change.channel);
        break;
      case "message": {
        const m = change.message;
        this.messages.set(messageKey(m.channel, m.ts), m);
        this.advance(m.ts);
        if (m.edited) this.advance(m.edited.ts);
        break;
      }
      case "message_removed":
        this.messages.delete(messageKey(change.channel, change.ts));
        break;
      case "file":
        this.files.set(change.file.id, change.file);
        break;
      case "view":
        this.views.set(change.user, change.view);
        break;
      case "feedback": {
        const s = change.selection;
        this.feedback.set(`${s.channel} ${s.ts} ${s.user}`, s);
        break;
      }
      case "assistant_thread":
        this.threads.set(messageKey(change.thread.channel, change.thread.threadTs), change.thread);
        break;
    }
  }

  /** The state as kept: bounded as the class says. */
  build(threadsPerChannel = KEPT_THREADS_PER_CHANNEL): WorkspaceState {
    const dropped = droppedThreads([...this.messages.values()], threadsPerChannel);
    const messages = [...this.messages.values()].filter(
      (m) => !dropped.has(messageKey(m.channel, m.thread_ts ?? m.ts)),
    );
    const kept = new Set(messages.map((m) => messageKey(m.channel, m.ts)));
    const shown = new Set(messages.flatMap((m) => (m.files ?? []).map((f) => f.id)));
    return {
      version: 1,
      lastTs: this.lastTs,
      users: [...this.users.values()],
      channels: [...this.channels.values()],
      messages,
      // A file no kept message shows is dropped, unless it is still being uploaded.
      files: [...this.files.values()].filter((f) => shown.has(f.id) || f.channels.length === 0),
      views: [...this.views].map(([user, view]) => ({ user, view })),
      feedback: [...this.feedback.values()].filter(
        (s) => kept.has(messageKey(s.channel, s.ts)) && Object.keys(s.selected).length > 0,
      ),
      assistantThreads: [...this.threads.values()].filter((t) => kept.has(messageKey(t.channel, t.threadTs))),
    };
  }

  private advance(ts: string): void {
    if (compareTs(ts, this.lastTs) > 0) this.lastTs = ts;
  }
}

/** The threads (by their root's key) beyond each channel's newest `limit`. */
function droppedThreads(messages: SandboxMessage[], limit: number): Set<string> {
  const roots = new Map<string, SandboxMessage[]>();
  for (const m of messages) {
    if (isReply(m)) continue;
    const list = roots.get(m.channel) ?? [];
    list.push(m);
    roots.set(m.channel, list);
  }
  const dropped = new Set<string>();
  for (const list of roots.values()) {
    if (list.length <= limit) continue;
    list.sort((a, b) => compareTs(a.ts, b.ts));
    for (const m of list.slice(0, list.length - limit)) dropped.add(messageKey(m.channel, m.ts));
  }
  return dropped;
}

const messageKey = (channel: string, ts: string) => `${channel} ${ts}`;
