import type { IncomingMessage, ServerResponse } from "node:http";
import { agentSessionsOf } from "../agent-sessions.ts";
import { assistantThreadsOf } from "../assistant-threads.ts";
import type { Workspace } from "../workspace.ts";
import { isDmOf } from "./agent-actions.ts";
import { pageEvent } from "./user-view.ts";

/** Comment lines keep proxies and the browser from timing an idle stream out. */
const HEARTBEAT_MS = 15_000;

/**
 * Server-Sent Events for one person: `ready` once subscribed (the page then loads the state, so
 * nothing between the two is lost), then one `workspace` event per change they may see.
 * Returns a function that ends the stream.
 */
export function openEventStream({
  req,
  res,
  workspace,
  me,
}: {
  req: IncomingMessage;
  res: ServerResponse;
  workspace: Workspace;
  me: string;
}): () => void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  res.write("retry: 2000\n\n");
  let id = 0;
  const unsubscribe = workspace.subscribe((event) => {
    const visible = pageEvent(workspace, event, me);
    if (visible) res.write(`id: ${++id}\nevent: workspace\ndata: ${JSON.stringify(visible)}\n\n`);
  });
  // The person's own assistant threads (status line, prompts, title), as `assistant_thread` events.
  const unsubscribeAssistant = assistantThreadsOf(workspace).subscribe((thread) => {
    if (thread.user !== me) return;
    res.write(
      `id: ${++id}\nevent: workspace\ndata: ${JSON.stringify({ type: "assistant_thread", thread })}\n\n`,
    );
  });
  // Agent sessions and Messages-tab prompts in the person's DM with the bot.
  const unsubscribeAgent = agentSessionsOf(workspace).subscribe((change) => {
    const channel = change.type === "agent_session" ? change.session.channel : change.prompts.channel;
    if (isDmOf(workspace, channel, me))
      res.write(`id: ${++id}\nevent: workspace\ndata: ${JSON.stringify(change)}\n\n`);
  });
  const heartbeat = setInterval(() => res.write(": ping\n\n"), HEARTBEAT_MS);
  heartbeat.unref();
  res.write(`event: ready\ndata: ${JSON.stringify({ me })}\n\n`);

  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    unsubscribeAssistant();
    unsubscribeAgent();
    res.end();
  };
  req.once("close", close);
  res.once("error", close);
  return close;
}
