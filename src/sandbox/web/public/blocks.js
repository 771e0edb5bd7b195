import { useContext, useState } from "preact/hooks";
import { ContextActions } from "./feedback-buttons.js";
import { html, Workspace } from "./html.js";
import { TextObject } from "./mrkdwn-view.js";
import { DataTable, DataVisualization, MarkdownBlock } from "./native-blocks.js";

/**
 * Block Kit as Slack draws it: section (text, fields, accessory), header, context, divider,
 * actions (buttons with styles and confirm dialogs), image, markdown, data_table, data_visualization
 * (`native-blocks.js`). Other blocks show a short note, so
 * nothing the bot sends disappears silently. `message` is what a click acts on (none in App Home).
 */
export function Blocks({ blocks, message }) {
  if (!Array.isArray(blocks)) return null;
  return html`<div class="blocks">
    ${blocks.map((block, i) => html`<${Block} key=${block?.block_id ?? i} block=${block} message=${message} />`)}
  </div>`;
}

function Block({ block, message }) {
  const ws = useContext(Workspace);
  switch (block?.type) {
    case "section":
      return html`<div class="block block-section">
        <div class="section-main">
          ${block.text ? html`<${TextObject} text=${block.text} />` : null}
          ${
            Array.isArray(block.fields)
              ? html`<div class="section-fields">
                  ${block.fields.map((f, i) => html`<div key=${i}><${TextObject} text=${f} /></div>`)}
                </div>`
              : null
          }
        </div>
        ${block.accessory ? html`<div class="section-accessory"><${Element} element=${block.accessory} message=${message} /></div>` : null}
      </div>`;
    case "header":
      return html`<h3 class="block block-header"><${TextObject} text=${block.text} inline /></h3>`;
    case "context":
      return html`<div class="block block-context">
        ${(block.elements ?? []).map((el, i) =>
          el?.type === "image"
            ? html`<img key=${i} class="context-image" src=${el.image_url} alt=${el.alt_text ?? ""} />`
            : html`<${TextObject} key=${i} text=${el} inline />`,
        )}
      </div>`;
    case "divider":
      return html`<hr class="block block-divider" />`;
    case "actions":
      return html`<div class="block block-actions" role="group" aria-label="Actions">
        ${(block.elements ?? []).map((el, i) => html`<${Element} key=${el?.action_id ?? i} element=${el} message=${message} />`)}
      </div>`;
    case "image":
      return html`<figure class="block block-image">
        ${block.title ? html`<figcaption><${TextObject} text=${block.title} inline /></figcaption>` : null}
        <img src=${imageSource(block, ws?.me ?? "")} alt=${block.alt_text ?? ""} loading="lazy" />
      </figure>`;
    case "context_actions":
      return html`<${ContextActions} block=${block} message=${message} />`;
    case "rich_text":
      return null;
    case "markdown":
      return html`<${MarkdownBlock} block=${block} />`;
    case "data_table":
      return html`<${DataTable} block=${block} />`;
    case "data_visualization":
      return html`<${DataVisualization} block=${block} />`;
    default:
      return html`<p class="block block-unsupported">[${String(block?.type ?? "unknown")} block — not shown in the sandbox]</p>`;
  }
}

function imageSource(block, me) {
  const file = block.slack_file;
  if (file?.id) return `/sandbox/files/${encodeURIComponent(file.id)}/image?as=${encodeURIComponent(me)}`;
  return file?.url ?? block.image_url;
}

function Element({ element, message }) {
  if (element?.type === "button") return html`<${Button} button=${element} message=${message} />`;
  if (element?.type === "image")
    return html`<img class="accessory-image" src=${element.image_url} alt=${element.alt_text ?? ""} />`;
  return html`<span class="element-unsupported">[${String(element?.type ?? "element")}]</span>`;
}

/** A Block Kit button: a click (after its confirm dialog, if any) goes to the bot as block_actions. */
function Button({ button, message }) {
  const ws = useContext(Workspace);
  const [busy, setBusy] = useState(false);
  const style = button.style === "primary" || button.style === "danger" ? button.style : "default";
  const label = button.text?.text ?? "Button";
  const clickable = Boolean(message && ws);
  async function click() {
    if (!clickable || busy) return;
    if (button.confirm && !(await ws.confirm(button.confirm))) return;
    if (button.url) window.open(button.url, "_blank", "noopener,noreferrer");
    setBusy(true);
    try {
      await ws.onAction({ message, button });
    } finally {
      setBusy(false);
    }
  }
  return html`<button
    type="button"
    class=${`btn btn-${style}`}
    onClick=${click}
    disabled=${!clickable}
    aria-busy=${busy ? "true" : undefined}
    aria-haspopup=${button.confirm ? "dialog" : undefined}
    title=${clickable ? button.accessibility_label : "Buttons in App Home are not wired up in the sandbox"}
  >${label}</button>`;
}
