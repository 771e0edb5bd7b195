import { useContext, useState } from "preact/hooks";
import { html, Workspace } from "./html.js";

/**
 * A `context_actions` block: 👍/👎 (`feedback_buttons`) and icon buttons. As in Slack, a feedback
 * click selects its side (and sends block_actions with that side's value); clicking the selected side
 * again only unselects it, and Slack sends nothing for that.
 */
export function ContextActions({ block, message }) {
  return html`<div class="block block-context-actions" role="group" aria-label="Message actions">
    ${(block.elements ?? []).map((el, i) =>
      el?.type === "feedback_buttons"
        ? html`<${FeedbackButtons} key=${el.action_id ?? i} element=${el} message=${message} />`
        : html`<${IconButton} key=${el?.action_id ?? i} element=${el} message=${message} />`,
    )}
  </div>`;
}

const THUMBS = {
  up: "M7 10v11H4a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1zm0 0 4-8a3 3 0 0 1 3 3v4h5.5a2 2 0 0 1 2 2.3l-1.3 8a2 2 0 0 1-2 1.7H7",
  down: "M17 14V3h3a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1zm0 0-4 8a3 3 0 0 1-3-3v-4H4.5a2 2 0 0 1-2-2.3l1.3-8a2 2 0 0 1 2-1.7H17",
};

/** 👍/👎 drawn as Slack draws them (an outline thumb), so they show without an emoji font. */
export function Thumb({ down = false, size = 16 }) {
  return html`<svg class="thumb" width=${size} height=${size} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
    <path d=${down ? THUMBS.down : THUMBS.up} fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round" />
  </svg>`;
}

/** The run a feedback value names (`up:<runId>`), for the "View run" link. */
export function runIdOf(element) {
  const m = /^(?:up|down):(.+)$/.exec(element?.positive_button?.value ?? "");
  return m ? m[1] : undefined;
}

function FeedbackButtons({ element, message }) {
  const ws = useContext(Workspace);
  const [selected, setSelected] = useState(null);
  const clickable = Boolean(message && ws);
  const runId = runIdOf(element);
  function click(side) {
    const button = element[side];
    if (!clickable || !button) return;
    if (selected === side) return setSelected(null);
    setSelected(side);
    ws.onAction({ message, button: { action_id: element.action_id, value: button.value } });
  }
  const sideButton = (side, fallback) => {
    const button = element[side];
    if (!button) return null;
    return html`<button
      type="button"
      class=${`feedback-button ${selected === side ? "selected" : ""}`}
      aria-pressed=${selected === side ? "true" : "false"}
      aria-label=${button.accessibility_label || button.text?.text || fallback}
      title=${button.accessibility_label || fallback}
      disabled=${!clickable}
      onClick=${() => click(side)}
    >${
      (button.text?.text ?? fallback) === fallback
        ? html`<${Thumb} down=${side === "negative_button"} />`
        : button.text.text
    }</button>`;
  };
  return html`<span class="feedback-buttons">
    ${sideButton("positive_button", "👍")}${sideButton("negative_button", "👎")}
    ${runId && ws?.openRun ? html`<button type="button" class="run-link" onClick=${() => ws.openRun(runId)}>View run</button>` : null}
  </span>`;
}

function IconButton({ element, message }) {
  const ws = useContext(Workspace);
  const clickable = Boolean(message && ws && element?.action_id);
  const label = element?.text?.text ?? element?.icon ?? "Action";
  return html`<button
    type="button"
    class="icon-action"
    aria-label=${element?.accessibility_label || label}
    disabled=${!clickable}
    onClick=${() => clickable && ws.onAction({ message, button: element })}
  >${element?.icon === "trash" ? "🗑" : ""} ${label}</button>`;
}
