/** An agent session's lifecycle status, as `agents.sessions.setStatus` takes it. */
export const AGENT_SESSION_STATUSES = ["active", "processing", "suspended", "closed"] as const;
export type AgentSessionStatus = (typeof AGENT_SESSION_STATUSES)[number];

/** One agent session: a thread in a person's DM with the bot (or in a channel), with its status and title. */
export interface AgentSession {
  channel: string;
  threadTs: string;
  status: AgentSessionStatus;
  title?: string;
  /** Who started it (`initiator_user_id`, or the thread's root author). */
  user?: string;
}

/** What the app was installed with, as far as agent sessions care. */
export interface AgentAppSettings {
  /** The manifest declares `features.agent_view`: without it `agents.sessions.*` answer `unknown_method`. */
  agentView: boolean;
  /** The app subscribes to `agent_session_stopped`: without it setStatus warns and Slack shows no Stop. */
  stopEvent: boolean;
}

/** Suggested prompts the app set for a person's Messages tab (no thread). */
export interface AgentPrompts {
  channel: string;
  title?: string;
  prompts: { title: string; message: string }[];
}

/** What subscribers (the page) are told: a session changed, or the prompts of a Messages tab. */
export type AgentViewChange =
  | { type: "agent_session"; session: AgentSession }
  | { type: "agent_prompts"; prompts: AgentPrompts };

export type AgentSessionListener = (change: AgentViewChange) => void;

/**
 * The agent sessions of a sandbox workspace, as Slack keeps them beside the messages (the Messages
 * tab shows each with its status; a processing one has a Stop button). Every change is told to
 * subscribers (the page).
 */
export class AgentSessions {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly listeners = new Set<AgentSessionListener>();
  private readonly prompts = new Map<string, AgentPrompts>();
  settings: AgentAppSettings = { agentView: true, stopEvent: true };

  subscribe(listener: AgentSessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(channel: string, threadTs: string): AgentSession | undefined {
    const session = this.sessions.get(key(channel, threadTs));
    return session ? { ...session } : undefined;
  }

  /** Every session, oldest first. */
  all(): AgentSession[] {
    return [...this.sessions.values()].map((s) => ({ ...s }));
  }

  /** Sets the status, creating the session (with `title` and `user`) when there is none yet. */
  setStatus(
    channel: string,
    threadTs: string,
    status: AgentSessionStatus,
    created: { title?: string; user?: string } = {},
  ): AgentSession {
    const existing = this.sessions.get(key(channel, threadTs));
    const session: AgentSession = existing
      ? { ...existing, status }
      : { channel, threadTs, status, ...definedOf(created) };
    return this.put(session);
  }

  rename(channel: string, threadTs: string, title: string): AgentSession | undefined {
    const existing = this.sessions.get(key(channel, threadTs));
    return existing ? this.put({ ...existing, title }) : undefined;
  }

  /** The suggested prompts of a Messages tab (`assistant.threads.setSuggestedPrompts` without a thread). */
  setPrompts(prompts: AgentPrompts): void {
    this.prompts.set(prompts.channel, structuredClone(prompts));
    for (const listener of this.listeners)
      listener({ type: "agent_prompts", prompts: structuredClone(prompts) });
  }

  /** Every Messages tab's prompts. */
  allPrompts(): AgentPrompts[] {
    return [...this.prompts.values()].map((p) => structuredClone(p));
  }

  promptsOf(channel: string): AgentPrompts | undefined {
    const prompts = this.prompts.get(channel);
    return prompts ? structuredClone(prompts) : undefined;
  }

  private put(session: AgentSession): AgentSession {
    this.sessions.set(key(session.channel, session.threadTs), session);
    for (const listener of this.listeners) listener({ type: "agent_session", session: { ...session } });
    return { ...session };
  }
}

function definedOf(o: { title?: string; user?: string }): { title?: string; user?: string } {
  return {
    ...(o.title !== undefined ? { title: o.title } : {}),
    ...(o.user !== undefined ? { user: o.user } : {}),
  };
}

const key = (channel: string, threadTs: string) => `${channel}:${threadTs}`;

const registry = new WeakMap<object, AgentSessions>();

/** The agent sessions of `workspace` (one set per workspace, made on first use). */
export function agentSessionsOf(workspace: object): AgentSessions {
  let sessions = registry.get(workspace);
  if (!sessions) {
    sessions = new AgentSessions();
    registry.set(workspace, sessions);
  }
  return sessions;
}
