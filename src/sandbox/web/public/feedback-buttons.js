import { useContext, useEffect, useState } from "preact/hooks";
import { html, Workspace } from "./html.js";
import { RunLink } from "./run-link.js";

/**
 * A `context_actions` block: 👍/👎 (`feedback_buttons`) and icon buttons. A feedback click selects
 * its side and sends block_actions with that side's value, or unselects it when it was selected and
 * sends nothing (as Slack, which has no "unselected" event). Which side this person selected is kept by the sandbox server (the message's
 * `feedback_selected`), as a Slack client remembers it, so it survives reopening the thread.
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
  const sideOf = (value) =>
    ["positive_button", "negative_button"].find((side) => value != null && element[side]?.value === value) ??
    null;
  const remembered = sideOf(message?.feedback_selected?.[element.action_id]);
  const [selected, setSelected] = useState(remembered);
  useEffect(() => setSelected(remembered), [remembered]);
  const clickable = Boolean(message && ws);
  const runId = runIdOf(element);
  async function click(side) {
    const button = element[side];
    if (!clickable || !button) return;
    const before = selected;
    setSelected(selected === side ? null : side);
    const answer = await ws.onAction({
      message,
      button: { action_id: element.action_id, value: button.value },
    });
    // What the server now remembers; a click that did not go through leaves the buttons as they were.
    if (answer && "feedbackSelected" in answer) setSelected(sideOf(answer.feedbackSelected));
    else if (!answer) setSelected(before);
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
    <${RunLink} runId=${runId} />
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
