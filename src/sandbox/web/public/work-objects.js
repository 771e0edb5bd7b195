import { useContext, useState } from "preact/hooks";
import { postJson } from "./api.js";
import { html, Workspace } from "./html.js";

/**
 * Work Objects on a message (`metadata.entities`, e.g. a Hermes ticket as a Task entity): one card
 * each, as Slack shows them under the message. Opening a card asks the app for its details (Slack
 * sends `entity_details_requested`; the app answers with `entity.presentDetails`) and shows them in a
 * detail panel with the app's buttons; a button click goes to the app as Slack sends it.
 */

// The cards' own stylesheet, loaded once beside the page's (the page's CSP allows its own origin).
if (typeof document !== "undefined" && !document.querySelector('link[href$="/work-objects.css"]')) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = "/sandbox/static/work-objects.css";
  document.head.append(link);
}

const FIELD_LABELS = {
  status: "Status",
  priority: "Priority",
  assignee: "Assignee",
  created_by: "Created by",
  date_created: "Created",
  date_updated: "Updated",
  description: "Description",
};

export function WorkObjects({ message }) {
  const entities = message?.metadata?.entities;
  if (!Array.isArray(entities) || entities.length === 0) return null;
  return html`<div class="work-objects">
    ${entities.map(
      (entity, index) =>
        html`<${WorkObjectCard} key=${entity?.url ?? index} entity=${entity} index=${index} message=${message} />`,
    )}
  </div>`;
}

function WorkObjectCard({ entity, index, message }) {
  const ws = useContext(Workspace);
  const [panel, setPanel] = useState(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState("");
  const attributes = entity?.entity_payload?.attributes ?? {};
  const fields = entity?.entity_payload?.fields ?? {};
  const title = attributes.title?.text ?? "Untitled";
  async function open() {
    setBusy(true);
    setProblem("");
    try {
      const answer = await postJson("/sandbox/api/work-objects/open", {
        as: ws.me,
        channel: message.channel,
        messageTs: message.ts,
        index,
      });
      setPanel(answer.panel);
    } catch (err) {
      setProblem(err.message);
    } finally {
      setBusy(false);
    }
  }
  return html`<section class="work-object" aria-label=${`${attributes.display_type ?? "Work Object"} ${attributes.display_id ?? ""}: ${title}`}>
    <div class="wo-head">
      <span class="wo-product">${attributes.product_name ?? "App"} · ${attributes.display_type ?? "Item"}</span>
      ${attributes.display_id ? html`<span class="wo-id">${attributes.display_id}</span>` : null}
    </div>
    <a class="wo-title" href=${entity.url} target="_blank" rel="noopener noreferrer">${title}</a>
    <div class="wo-tags">
      ${["status", "priority", "assignee"].map((k) =>
        fields[k] ? html`<${FieldValue} key=${k} name=${k} field=${fields[k]} compact=${true} />` : null,
      )}
    </div>
    <button type="button" class="wo-open" disabled=${busy} onClick=${open}>${busy ? "Opening…" : "Open details"}</button>
    ${problem ? html`<p class="wo-problem" role="alert">${problem}</p>` : null}
    ${panel ? html`<${DetailPanel} panel=${panel} onClose=${() => setPanel(null)} />` : null}
  </section>`;
}

function DetailPanel({ panel, onClose }) {
  const ws = useContext(Workspace);
  const [note, setNote] = useState("");
  if (panel.error) {
    return html`<aside class="wo-panel" role="dialog" aria-label="Details">
      <header><h2>${panel.error.custom_title ?? "Cannot show this"}</h2>
        <button type="button" class="wo-close" aria-label="Close details" onClick=${onClose}>×</button></header>
      <p>${panel.error.custom_message ?? panel.error.status}</p>
    </aside>`;
  }
  const entity = panel.metadata ?? {};
  const payload = entity.entity_payload ?? {};
  const attributes = payload.attributes ?? {};
  const fields = payload.fields ?? {};
  const order = payload.display_order ?? Object.keys(fields);
  const buttons = [...(payload.actions?.primary_actions ?? []), ...(payload.actions?.overflow_actions ?? [])];
  async function click(button) {
    setNote("");
    try {
      await postJson("/sandbox/api/work-objects/action", { as: ws.me, actionId: button.action_id });
      setNote(`Sent “${button.text}”. The result comes in the conversation.`);
    } catch (err) {
      setNote(err.message);
    }
  }
  return html`<aside class="wo-panel" role="dialog" aria-label=${`Details of ${attributes.display_id ?? ""} ${attributes.title?.text ?? ""}`}>
    <header>
      <div>
        <span class="wo-product">${attributes.product_name ?? "App"} · ${attributes.display_type ?? "Item"} ${attributes.display_id ?? ""}</span>
        <h2>${attributes.title?.text ?? "Untitled"}</h2>
      </div>
      <button type="button" class="wo-close" aria-label="Close details" onClick=${onClose}>×</button>
    </header>
    <dl class="wo-fields">
      ${order
        .filter((k) => fields[k])
        .map(
          (k) => html`<div key=${k} class="wo-field">
            <dt>${fields[k].label ?? FIELD_LABELS[k] ?? k}</dt>
            <dd><${FieldValue} name=${k} field=${fields[k]} /></dd>
          </div>`,
        )}
    </dl>
    ${
      buttons.length
        ? html`<div class="wo-actions" role="group" aria-label="Actions">
            ${buttons.map(
              (b) =>
                html`<button key=${b.action_id} type="button" class=${`wo-action ${b.style ?? ""}`} onClick=${() => click(b)}>${b.text}</button>`,
            )}
          </div>`
        : null
    }
    ${note ? html`<p class="wo-note" role="status">${note}</p>` : null}
    <a class="wo-link" href=${entity.url} target="_blank" rel="noopener noreferrer">Open in ${attributes.product_name ?? "the app"}</a>
  </aside>`;
}

/** A field as Slack shows it: a person by name, a date, a colored tag, or text. */
function FieldValue({ name, field, compact = false }) {
  const ws = useContext(Workspace);
  let text = field.value ?? "";
  const userId = field.user?.user_id;
  if (userId) {
    const u = ws?.userById.get(userId);
    text = u ? `@${u.displayName || u.name}` : userId;
  } else if (typeof field.value === "number" && /^date_/.test(name)) {
    text = new Date(field.value * 1000).toLocaleString();
  } else if (/^<!subteam\^/.test(String(text))) {
    text = "a user group";
  }
  const label = compact ? `${FIELD_LABELS[name] ?? name}: ` : "";
  return field.tag_color
    ? html`<span class=${`wo-tag wo-${field.tag_color}`}>${label}${text}</span>`
    : html`<span class="wo-value">${label}${text}</span>`;
}
