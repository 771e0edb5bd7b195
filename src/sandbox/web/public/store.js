import { useEffect, useRef, useState } from "preact/hooks";
import { getJson } from "./api.js";

/**
 * The workspace as one person sees it, kept live: the event stream opens first, then the state is
 * loaded and the events that arrived meanwhile are replayed on it (each applies idempotently).
 * `onEvent` hears every change (unread marks, the audit panel's refresh).
 */
export function useLiveWorkspace(as, onEvent) {
  const [state, setState] = useState(null);
  const [status, setStatus] = useState("connecting");
  const [error, setError] = useState("");
  const listener = useRef(onEvent);
  listener.current = onEvent;

  useEffect(() => {
    let current = null;
    let buffered = null;
    let closed = false;
    setState(null);
    setStatus("connecting");
    const source = new EventSource(`/sandbox/api/stream?as=${encodeURIComponent(as)}`);
    const publish = (next) => {
      current = next;
      if (!closed) setState(next);
    };
    source.addEventListener("ready", async () => {
      setStatus("live");
      buffered = [];
      try {
        const { state: fresh } = await getJson("/sandbox/api/state", as);
        let next = fromServer(fresh);
        for (const event of buffered) next = applyEvent(next, event);
        publish(next);
        setError("");
      } catch (err) {
        setError(err.message);
      } finally {
        buffered = null;
      }
    });
    source.addEventListener("workspace", (message) => {
      const event = JSON.parse(message.data);
      if (buffered) buffered.push(event);
      else if (current) publish(applyEvent(current, event));
      listener.current?.(event);
    });
    source.addEventListener("error", () => {
      if (!closed) setStatus("reconnecting");
    });
    return () => {
      closed = true;
      source.close();
    };
  }, [as]);

  return { state, status, error };
}

/** Messages keyed by channel and ts; users and channels by id. */
export function fromServer(state) {
  const messages = new Map(state.messages.map((m) => [keyOf(m.channel, m.ts), m]));
  const threads = (state.assistantThreads ?? []).map((t) => [keyOf(t.channel, t.threadTs), t]);
  const sessions = (state.agentSessions ?? []).map((t) => [keyOf(t.channel, t.threadTs), t]);
  return { ...state, messages, assistantThreads: new Map(threads), agentSessions: new Map(sessions) };
}

export function applyEvent(state, event) {
  if (event.type === "assistant_thread") {
    const assistantThreads = new Map(state.assistantThreads);
    assistantThreads.set(keyOf(event.thread.channel, event.thread.threadTs), event.thread);
    return { ...state, assistantThreads };
  }
  if (event.type === "agent_session") {
    const agentSessions = new Map(state.agentSessions);
    agentSessions.set(keyOf(event.session.channel, event.session.threadTs), event.session);
    return { ...state, agentSessions };
  }
  if (event.type === "agent_prompts") return { ...state, agentPrompts: event.prompts };
  if (event.type === "view_published") return { ...state, view: event.view };
  if (event.type === "file_uploaded") return state;
  const messages = new Map(state.messages);
  const key = keyOf(event.channel, event.message.ts);
  const gone = event.type === "message_deleted" && event.message.subtype !== "tombstone";
  if (gone) messages.delete(key);
  else messages.set(key, { ...event.message, channel: event.channel });
  return { ...state, messages };
}

function keyOf(channel, ts) {
  return `${channel}:${ts}`;
}

/** A Slack ts in milliseconds. */
export function tsMillis(ts) {
  return Math.round(Number.parseFloat(ts) * 1000);
}

export function compareTs(a, b) {
  const [as = "0", af = ""] = a.split(".");
  const [bs = "0", bf = ""] = b.split(".");
  return Number(as) - Number(bs) || af.padEnd(6, "0").localeCompare(bf.padEnd(6, "0"));
}

export function isReply(m) {
  return m.thread_ts !== undefined && m.thread_ts !== m.ts;
}

/** A channel's top-level messages, oldest first (the person's ephemerals included). */
export function channelMessages(state, channel) {
  return [...state.messages.values()]
    .filter((m) => m.channel === channel && !isReply(m))
    .sort((a, b) => compareTs(a.ts, b.ts));
}

/** Every thread's replies, oldest first, by `channel:thread_ts` of the parent. */
export function repliesByParent(state) {
  const byParent = new Map();
  const sorted = [...state.messages.values()].filter(isReply).sort((a, b) => compareTs(a.ts, b.ts));
  for (const reply of sorted) {
    const key = `${reply.channel}:${reply.thread_ts}`;
    byParent.set(key, [...(byParent.get(key) ?? []), reply]);
  }
  return byParent;
}
