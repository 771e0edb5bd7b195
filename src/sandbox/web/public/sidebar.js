import { useContext } from "preact/hooks";
import { html, Workspace } from "./html.js";
import { Icon } from "./icons.js";
import { displayName } from "./message.js";

/** Channels, then direct messages (a DM is named after the other person: the bot, here). */
export function Sidebar({ channels, active, unread, open, onSelect, onClose }) {
  const ws = useContext(Workspace);
  const rooms = channels.filter((c) => !c.isIm).sort((a, b) => a.name.localeCompare(b.name));
  const dms = channels.filter((c) => c.isIm);
  const item = (channel, content) => html`<li key=${channel.id}>
    <button
      type="button"
      class=${`sidebar-item${channel.id === active ? " active" : ""}${unread.has(channel.id) ? " unread" : ""}`}
      aria-current=${channel.id === active ? "page" : undefined}
      onClick=${() => onSelect(channel.id)}
    >
      ${content}
      ${unread.has(channel.id) ? html`<span class="visually-hidden">, new messages</span>` : null}
    </button>
  </li>`;
  const onKeyDown = (event) => {
    if (open && event.key === "Escape") onClose();
  };
  return html`<nav id="sidebar" class=${open ? "sidebar open" : "sidebar"} aria-label="Channels and direct messages" onKeyDown=${onKeyDown}>
    <div class="sidebar-team">${ws.team.name}</div>
    <h2 class="sidebar-heading" id="sidebar-channels">Channels</h2>
    <ul class="sidebar-list" aria-labelledby="sidebar-channels">
      ${rooms.map((c) => item(c, html`<span class="hash" aria-hidden="true">${c.isPrivate ? html`<${Icon} name="lock" size=${14} />` : "#"}</span><span>${c.name}</span>`))}
    </ul>
    <h2 class="sidebar-heading" id="sidebar-dms">Direct messages</h2>
    <ul class="sidebar-list" aria-labelledby="sidebar-dms">
      ${dms.map((c) => {
        const other = ws.userById.get(c.dmWith);
        return item(
          c,
          html`<img class="avatar-xs" src=${other?.avatar ?? ""} alt="" /><span>${displayName(other)}</span>${
            other?.isBot ? html`<span class="badge">App</span>` : null
          }`,
        );
      })}
    </ul>
  </nav>`;
}
