import { useContext } from "preact/hooks";
import { Blocks } from "./blocks.js";
import { formatSize } from "./file-size.js";
import { html, Workspace } from "./html.js";
import { FileTile, Icon } from "./icons.js";
import { Mrkdwn } from "./mrkdwn-view.js";
import { RunLink, runOfMessage } from "./run-link.js";
import { tsMillis } from "./store.js";
import { StreamLive, StreamTasks } from "./stream-tasks.js";
import { WorkObjects } from "./work-objects.js";

/** Who wrote a message: the user, or the bot user behind a bot_id. */
export function authorOf(ws, message) {
  const byId = message.user ? ws.userById.get(message.user) : undefined;
  if (byId) return byId;
  if (message.bot_id) return ws.userById.get(ws.bot.userId);
  return undefined;
}

export function displayName(user) {
  return user ? user.realName || user.displayName || user.name : "Unknown";
}

export function timeOf(ts) {
  return new Date(tsMillis(ts)).toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });
}

/** Only rich_text blocks: what a person typed; its `text` says the same and renders as mrkdwn. */
function typedByPerson(message) {
  const blocks = message.blocks ?? [];
  return blocks.length === 0 || blocks.every((b) => b?.type === "rich_text");
}

/** Whether the message has 👍/👎, which carry their own "View run" beside them. */
function hasFeedbackButtons(message) {
  return (message.blocks ?? []).some(
    (b) => b?.type === "context_actions" && (b.elements ?? []).some((el) => el?.type === "feedback_buttons"),
  );
}

/**
 * One message: avatar, name, time, body (Block Kit or mrkdwn text), the link to its run, files, and
 * the thread summary.
 * `continued` hides the avatar and name under the same author's previous message, as Slack does.
 */
export function Message({ message, replies = [], continued = false, inThread = false }) {
  const ws = useContext(Workspace);
  const author = authorOf(ws, message);
  const name = displayName(author);
  const when = new Date(tsMillis(message.ts));
  const ephemeral = message.ephemeral_for !== undefined;
  const visibleReplies = replies.filter((r) => r.ephemeral_for === undefined);
  const canReply = !inThread && !ephemeral && message.subtype !== "tombstone";
  const classes = ["message", continued ? "continued" : "", ephemeral ? "ephemeral" : ""].join(" ");
  return html`<article class=${classes} id=${`m-${message.channel}-${message.ts}`} aria-label=${`${name}, ${timeOf(message.ts)}`}>
    <div class="message-gutter">
      ${
        continued
          ? html`<time class="gutter-time" datetime=${when.toISOString()}>${timeOf(message.ts)}</time>`
          : html`<img class="avatar" src=${author?.avatar ?? ""} alt="" width="36" height="36" />`
      }
    </div>
    <div class="message-main">
      ${
        continued
          ? null
          : html`<div class="message-meta">
              <span class="author">${name}</span>
              ${author?.isBot ? html`<span class="badge">App</span>` : null}
              <time datetime=${when.toISOString()} title=${when.toLocaleString()}>${timeOf(message.ts)}</time>
            </div>`
      }
      <${StreamTasks} stream=${message.stream} />
      ${ephemeral ? html`<p class="ephemeral-note"><${Icon} name="eye" size=${14} /> Only visible to you</p>` : null}
      ${
        typedByPerson(message)
          ? html`<${Mrkdwn} text=${message.text ?? ""} />`
          : html`<${Blocks} blocks=${message.blocks} message=${message} />`
      }
      ${message.edited ? html`<span class="edited">(edited)</span>` : null}
      ${
        // A run's failure or stop sentence and its approval cards link to the run as its answer does.
        !hasFeedbackButtons(message) && runOfMessage(message)
          ? html`<div class="message-run"><${RunLink} runId=${runOfMessage(message)} /></div>`
          : null
      }
      <${StreamLive} stream=${message.stream} />
      <${Files} files=${message.files} />
      <${WorkObjects} message=${message} />
      ${
        !inThread && visibleReplies.length > 0
          ? html`<button type="button" class="thread-summary" onClick=${() => ws.openThread(message)}>
              ${[...new Set(visibleReplies.map((r) => authorOf(ws, r)))]
                .slice(0, 3)
                .map((u) => html`<img key=${u?.id} class="avatar-xs" src=${u?.avatar ?? ""} alt="" />`)}
              <span class="reply-count">${visibleReplies.length} ${visibleReplies.length === 1 ? "reply" : "replies"}</span>
              <span class="last-reply">Last reply ${timeOf(visibleReplies.at(-1).ts)}</span>
            </button>`
          : null
      }
    </div>
    ${
      canReply
        ? html`<div class="message-actions">
            <button type="button" class="icon-button" onClick=${() => ws.openThread(message)} aria-label=${`Reply in thread to ${name}`} title="Reply in thread">
              <${Icon} name="thread" />
            </button>
          </div>`
        : null
    }
  </article>`;
}

/** Files of a message: images inline (screenshots, charts), anything else as a card linking to the download. */
function Files({ files }) {
  if (!Array.isArray(files) || files.length === 0) return null;
  return html`<div class="files">
    ${files.map((file) =>
      /^image\/(png|jpeg|gif|webp)$/.test(file.mimetype)
        ? html`<figure key=${file.id} class="file-image">
            <a href=${file.url} target="_blank" rel="noopener noreferrer">
              <img src=${file.url} alt=${file.alt_text || file.title || file.name} />
            </a>
            <figcaption>${file.title || file.name}</figcaption>
          </figure>`
        : html`<a key=${file.id} class="file-card" href=${file.downloadUrl} download=${file.name}>
            <${FileTile} filetype=${file.filetype} />
            <span class="file-text">
              <span class="file-name">${file.title || file.name}</span>
              <span class="file-meta">${file.pretty_type || (file.filetype || "file").toUpperCase()} · ${formatSize(file.size)} · Download</span>
            </span>
          </a>`,
    )}
  </div>`;
}
