import { useContext } from "preact/hooks";
import { html, Workspace } from "./html.js";

/**
 * What a link to a thread (`channel`, `ts`) shows the viewer: nothing for a channel they are not in
 * (or no thread), "gone" when the thread's messages are no longer in the workspace (a fresh sandbox
 * workspace, or a deleted message), else "open".
 */
export function threadLinkState(ws, channel, ts) {
  if (!channel || !ts || !ws?.channelById?.has(channel)) return "none";
  return ws.messages?.has(`${channel}:${ts}`) ? "open" : "gone";
}

/**
 * The thread a run or an audit row belongs to: opens it beside its channel, or says it is no longer
 * available, never a link that breaks.
 */
export function ThreadLink({ channel, ts }) {
  const ws = useContext(Workspace);
  const state = ws?.openThreadIn ? threadLinkState(ws, channel, ts) : "none";
  if (state === "none") return null;
  if (state === "gone")
    return html`<span class="thread-gone" title="Its messages are no longer in this workspace">thread no longer available</span>`;
  return html`<button type="button" class="thread-link" onClick=${() => ws.openThreadIn(channel, ts)} aria-label="Open the thread">thread ↗</button>`;
}
