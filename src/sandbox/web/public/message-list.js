import { useLayoutEffect, useRef } from "preact/hooks";
import { html } from "./html.js";
import { Message } from "./message.js";
import { tsMillis } from "./store.js";

const GROUP_MS = 5 * 60 * 1000;

/**
 * Messages oldest first with day dividers; a message right after the same author's (within five
 * minutes) drops its avatar and name. A `role="log"` region, so screen readers announce new ones.
 * Stays scrolled to the bottom when it was there. In a thread, `divider` follows the parent.
 */
export function MessageList({ messages, repliesOf, label, inThread = false, divider = "", empty }) {
  const list = useRef(null);
  const pinned = useRef(true);
  const count = messages.length;
  useLayoutEffect(() => {
    const el = list.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [count, messages]);
  // Images (charts) load after the first layout and push the bottom down: follow them.
  const onLoad = () => {
    const el = list.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  };
  const onScroll = () => {
    const el = list.current;
    if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  };

  let previous = null;
  const items = [];
  for (const message of messages) {
    const day = new Date(tsMillis(message.ts)).toDateString();
    if (!inThread && (!previous || new Date(tsMillis(previous.ts)).toDateString() !== day))
      items.push(
        html`<div key=${`day-${day}`} class="day-divider" role="separator"><span>${dayLabel(message.ts)}</span></div>`,
      );
    const continued =
      previous !== null &&
      !inThread &&
      sameAuthor(previous, message) &&
      tsMillis(message.ts) - tsMillis(previous.ts) < GROUP_MS &&
      !previous.ephemeral_for &&
      !message.ephemeral_for &&
      (repliesOf?.(previous).length ?? 0) === 0;
    items.push(
      html`<${Message} key=${message.ts} message=${message} replies=${repliesOf?.(message) ?? []} continued=${continued} inThread=${inThread} />`,
    );
    if (divider && message === messages[0])
      items.push(
        html`<div key="replies" class="replies-divider" role="separator"><span>${divider}</span></div>`,
      );
    previous = message;
  }
  return html`<div class="message-list" ref=${list} onScroll=${onScroll} onLoadCapture=${onLoad} role="log" aria-live="polite" aria-label=${label} tabindex="0">
    ${items.length > 0 ? items : html`<p class="empty">${empty}</p>`}
  </div>`;
}

function sameAuthor(a, b) {
  return (a.user ?? a.bot_id) === (b.user ?? b.bot_id);
}

function dayLabel(ts) {
  const date = new Date(tsMillis(ts));
  const today = new Date();
  const yesterday = new Date(Date.now() - 86_400_000);
  if (date.toDateString() === today.toDateString()) return "Today";
  if (date.toDateString() === yesterday.toDateString()) return "Yesterday";
  return date.toLocaleDateString(undefined, { weekday: "long", month: "long", day: "numeric" });
}
