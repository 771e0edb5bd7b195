import { useEffect, useRef } from "preact/hooks";
import { html } from "./html.js";
import { TextObject } from "./mrkdwn-view.js";

/**
 * A button's `confirm` object as a modal dialog (the native <dialog>: focus is trapped, Escape
 * cancels). `request` is `{ confirm, resolve }`; resolve(true) sends the click.
 */
export function ConfirmDialog({ request }) {
  const dialog = useRef(null);
  useEffect(() => {
    const el = dialog.current;
    if (request && el && !el.open) el.showModal();
    if (!request && el?.open) el.close();
  }, [request]);
  const confirm = request?.confirm;
  const answer = (ok) => request?.resolve(ok);
  const style = confirm?.style === "danger" ? "btn-danger" : "btn-primary";
  return html`<dialog
    ref=${dialog}
    class="confirm-dialog"
    aria-labelledby="confirm-title"
    aria-describedby="confirm-text"
    onCancel=${(e) => {
      e.preventDefault();
      answer(false);
    }}
  >
    ${
      confirm
        ? html`<form method="dialog" onSubmit=${(e) => e.preventDefault()}>
            <h2 id="confirm-title"><${TextObject} text=${confirm.title ?? { type: "plain_text", text: "Are you sure?" }} inline /></h2>
            <div id="confirm-text"><${TextObject} text=${confirm.text} /></div>
            <div class="dialog-buttons">
              <button type="button" class="btn btn-default" onClick=${() => answer(false)} autofocus>
                ${confirm.deny?.text ?? "Cancel"}
              </button>
              <button type="button" class=${`btn ${style}`} onClick=${() => answer(true)}>
                ${confirm.confirm?.text ?? "Yes"}
              </button>
            </div>
          </form>`
        : null
    }
  </dialog>`;
}
