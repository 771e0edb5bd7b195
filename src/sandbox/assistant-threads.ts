import type {
  NewMessage,
  SandboxBot,
  SandboxChannel,
  SandboxMessage,
  SandboxTeam,
  WorkspaceListener,
} from "./workspace-types.ts";

/**
 * What assistant threads use of their workspace (a `Workspace`): its team and bot, its changes, the
 * bot's DMs and posting. Named here, not imported from workspace.ts, which reaches this module through
 * the state it keeps (workspace-state.ts holds the threads).
 */
export interface ThreadsWorkspace {
  readonly team: SandboxTeam;
  readonly bot: SandboxBot;
  subscribe(listener: WorkspaceListener): () => void;
  openDm(userId: string): SandboxChannel;
  post(input: NewMessage): SandboxMessage;
}

/** What the user is looking at when they open (or keep using) the assistant split view. */
export interface AssistantContext {
  channel_id?: string;
  team_id: string;
  enterprise_id: string | null;
}

export interface AssistantPrompt {
  title: string;
  message: string;
}

/** One assistant thread in a person's DM with the bot: what the split view shows beside the messages. */
export interface AssistantThread {
  user: string;
  channel: string;
  threadTs: string;
  context: AssistantContext;
  title?: string;
  /** "is running create_ticket…"; empty when no turn runs. */
  status: string;
  loadingMessages: string[];
  prompts?: { title?: string; prompts: AssistantPrompt[] };
}

export type AssistantThreadListener = (thread: AssistantThread) => void;

/**
 * The assistant threads of a sandbox workspace (Slack keeps these beside the messages). Opening one
 * posts the thread's root into the person's DM with the bot, as Slack does; the status clears when
 * the bot replies in the thread, as Slack's does. Every change is told to subscribers (the page).
 */
export class AssistantThreads {
  private readonly threads = new Map<string, AssistantThread>();
  private readonly listeners = new Set<AssistantThreadListener>();
  private readonly workspace: ThreadsWorkspace;

  constructor(workspace: ThreadsWorkspace) {
    this.workspace = workspace;
    workspace.subscribe((event) => {
      if (event.type !== "message_posted") return;
      const m = event.message;
      const thread = m.thread_ts ? this.threads.get(key(event.channel, m.thread_ts)) : undefined;
      if (thread?.status && m.user === workspace.bot.userId)
        this.update(thread, { status: "", loadingMessages: [] });
    });
  }

  subscribe(listener: AssistantThreadListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A new thread in `user`'s DM with the bot, its root posted as Slack posts it. */
  open(user: string, viewing?: string): AssistantThread {
    const dm = this.workspace.openDm(user);
    const root = this.workspace.post({
      channel: dm.id,
      text: "New chat",
      user: this.workspace.bot.userId,
      subtype: "assistant_app_thread",
    });
    const thread: AssistantThread = {
      user,
      channel: dm.id,
      threadTs: root.ts,
      context: this.contextOf(viewing),
      status: "",
      loadingMessages: [],
    };
    this.threads.set(key(dm.id, root.ts), thread);
    this.emit(thread);
    return structuredClone(thread);
  }

  get(channel: string, threadTs: string): AssistantThread | undefined {
    const thread = this.threads.get(key(channel, threadTs));
    return thread ? structuredClone(thread) : undefined;
  }

  /** Every thread, oldest first (what a restart keeps). */
  all(): AssistantThread[] {
    return [...this.threads.values()].map((t) => structuredClone(t));
  }

  /** Takes back kept threads (a restored workspace); tells no subscriber. */
  restore(threads: readonly AssistantThread[]): void {
    for (const t of threads) this.threads.set(key(t.channel, t.threadTs), structuredClone(t));
  }

  /** The threads `user` has opened, oldest first. */
  listFor(user: string): AssistantThread[] {
    return [...this.threads.values()].filter((t) => t.user === user).map((t) => structuredClone(t));
  }

  /** The user now looks at `viewing` (a channel id) while the thread is open. */
  changeContext(channel: string, threadTs: string, viewing?: string): AssistantThread | undefined {
    const thread = this.threads.get(key(channel, threadTs));
    if (!thread) return undefined;
    return this.update(thread, { context: this.contextOf(viewing) });
  }

  set(
    channel: string,
    threadTs: string,
    patch: Partial<Pick<AssistantThread, "title" | "status" | "loadingMessages" | "prompts">>,
  ): AssistantThread | undefined {
    const thread = this.threads.get(key(channel, threadTs));
    return thread ? this.update(thread, patch) : undefined;
  }

  private contextOf(viewing: string | undefined): AssistantContext {
    return {
      ...(viewing ? { channel_id: viewing } : {}),
      team_id: this.workspace.team.id,
      enterprise_id: null,
    };
  }

  private update(thread: AssistantThread, patch: Partial<AssistantThread>): AssistantThread {
    Object.assign(thread, patch);
    this.emit(thread);
    return structuredClone(thread);
  }

  private emit(thread: AssistantThread): void {
    for (const listener of this.listeners) listener(structuredClone(thread));
  }
}

const key = (channel: string, threadTs: string) => `${channel}:${threadTs}`;

const registry = new WeakMap<ThreadsWorkspace, AssistantThreads>();

/** The assistant threads of `workspace` (one set per workspace, made on first use). */
export function assistantThreadsOf(workspace: ThreadsWorkspace): AssistantThreads {
  let threads = registry.get(workspace);
  if (!threads) {
    threads = new AssistantThreads(workspace);
    registry.set(workspace, threads);
  }
  return threads;
}
