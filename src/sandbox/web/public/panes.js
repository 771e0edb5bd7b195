import { useContext, useEffect } from "preact/hooks";
import { Blocks } from "./blocks.js";
import { Composer } from "./composer.js";
import { html, Workspace } from "./html.js";
import { Icon } from "./icons.js";
import { MessageList } from "./message-list.js";

/** A thread in the side pane: the parent, its replies, and a composer that replies in the thread. */
export function ThreadPane({ parent, replies, channelLabel, onReply, onClose }) {
  const ws = useContext(Workspace);
  const count = replies.filter((r) => r.ephemeral_for === undefined).length;
  useEffect(() => {
    document.querySelector(".thread-pane textarea")?.focus();
  }, [parent?.ts]);
  if (!parent) return null;
  const onKeyDown = (event) => {
    if (event.key === "Escape" && !event.defaultPrevented) onClose();
  };
  return html`<aside class="side-pane thread-pane" aria-labelledby="thread-title" onKeyDown=${onKeyDown}>
    <header class="pane-header">
      <h2 id="thread-title">Thread <span class="pane-sub">${channelLabel}</span></h2>
      <button type="button" class="icon-button" onClick=${onClose} aria-label="Close thread"><${Icon} name="close" /></button>
    </header>
    <${MessageList}
      messages=${[parent, ...replies]}
      label=${`Thread in ${channelLabel}`}
      inThread
      divider=${count > 0 ? `${count} ${count === 1 ? "reply" : "replies"}` : ""}
      empty=""
    />
    <${Composer}
      key=${`${ws.me}-${parent.ts}`}
      label=${"Reply in thread"}
      placeholder="Reply…"
      commands=${false}
      onSend=${onReply}
    />
  </aside>`;
}

/** The App Home tab: the view the bot published for this person. */
export function HomeView({ view, botName }) {
  return html`<div class="home-view" role="tabpanel" id="tab-home" aria-labelledby="tab-home-button" tabindex="0">
    ${
      view?.blocks?.length
        ? html`<${Blocks} blocks=${view.blocks} />`
        : html`<p class="empty">${botName} has not published a Home for you yet.</p>`
    }
  </div>`;
}

/** The channel's name; a DM with the bot also gets its Home and Messages tabs, as apps have in Slack. */
export function ChannelHeader({ title, other, tab, onTab }) {
  return html`<header class="channel-header">
    <h1 id="channel-title">
      ${other ? html`<img class="avatar-xs" src=${other.avatar} alt="" />` : null}${title}
      ${other?.isBot ? html`<span class="badge">App</span>` : null}
    </h1>
    ${
      other?.isBot
        ? html`<div class="tabs" role="tablist" aria-label=${`${title} tabs`}>
            ${["home", "messages"].map(
              (t) => html`<button
                key=${t}
                type="button"
                role="tab"
                id=${`tab-${t}-button`}
                aria-selected=${tab === t ? "true" : "false"}
                aria-controls=${`tab-${t}`}
                class=${tab === t ? "tab active" : "tab"}
                onClick=${() => onTab(t)}
              >${t === "home" ? "Home" : "Messages"}</button>`,
            )}
          </div>`
        : null
    }
  </header>`;
}
