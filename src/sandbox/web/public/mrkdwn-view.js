import { useContext } from "preact/hooks";
import { html, Workspace } from "./html.js";
import { formatSlackDate, parseMrkdwn, parsePlain } from "./mrkdwn.js";

/** A text object (`mrkdwn` or `plain_text`) as DOM, via the syntax tree: never as HTML. */
export function TextObject({ text, inline = false }) {
  if (!text || typeof text.text !== "string") return null;
  const nodes = text.type === "mrkdwn" ? parseMrkdwn(text.text) : parsePlain(text.text);
  return html`<span class=${inline ? "mrkdwn" : "mrkdwn block"}><${Nodes} nodes=${nodes} /></span>`;
}

/** A message's `text` field, which Slack reads as mrkdwn. */
export function Mrkdwn({ text }) {
  return html`<div class="mrkdwn block"><${Nodes} nodes=${parseMrkdwn(text)} /></div>`;
}

export function Nodes({ nodes }) {
  return nodes.map((node, i) => html`<${Node} key=${i} node=${node} />`);
}

function Node({ node }) {
  const ws = useContext(Workspace);
  switch (node.type) {
    case "text":
      return node.text;
    case "bold":
      return html`<strong><${Nodes} nodes=${node.children} /></strong>`;
    case "italic":
      return html`<em><${Nodes} nodes=${node.children} /></em>`;
    case "strike":
      return html`<del><${Nodes} nodes=${node.children} /></del>`;
    case "quote":
      return html`<blockquote><${Nodes} nodes=${node.children} /></blockquote>`;
    case "code":
      return html`<code>${node.text}</code>`;
    case "pre":
      return html`<pre><code>${node.text}</code></pre>`;
    case "emoji":
      return html`<span class="emoji" role="img" aria-label=${node.name.replace(/_/g, " ")}>${node.text}</span>`;
    case "link":
      return html`<a href=${node.url} target="_blank" rel="noopener noreferrer">${node.text}</a>`;
    case "user": {
      const user = ws?.userById.get(node.id);
      const name = user ? user.displayName || user.name : (node.label ?? node.id);
      const mine = node.id === ws?.me;
      return html`<span class=${mine ? "mention mention-me" : "mention"}>@${name}</span>`;
    }
    case "channel": {
      const channel = ws?.channelById.get(node.id);
      const name = `#${channel?.name || node.label || node.id}`;
      // A channel the reader can open is a link to it, as in Slack; others are just its name.
      if (!channel || !ws?.openChannel) return html`<span class="mention">${name}</span>`;
      return html`<a
        class="mention channel-link"
        href=${`#${node.id}`}
        onClick=${(e) => {
          e.preventDefault();
          ws.openChannel(node.id);
        }}
      >${name}</a>`;
    }
    case "broadcast":
      return html`<span class="mention mention-me">@${node.name}</span>`;
    case "date": {
      const text = formatSlackDate(node.ts, node.format) ?? node.fallback;
      const iso = Number.isFinite(node.ts) ? new Date(node.ts * 1000).toISOString() : undefined;
      return html`<time datetime=${iso} title=${node.fallback}>${text}</time>`;
    }
    default:
      return null;
  }
}
