import { useEffect, useRef, useState } from "preact/hooks";
import { formatSize } from "./file-size.js";
import { html } from "./html.js";
import { FileTile, Icon } from "./icons.js";

/** The sandbox's limits (the server checks them too): ten files, 10 MB each. */
export const MAX_FILES = 10;
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

let attachmentIds = 0;

const IMAGE = /^image\/(png|jpeg|gif|webp)$/;

/**
 * A browser File as a pending attachment: `{ key, name, size, mimetype, filetype, data, preview }`,
 * with the bytes as base64 (`data`) and, for images, a data: URL to preview. Throws a sentence the
 * composer shows when the file cannot be attached.
 */
export async function readAttachment(file) {
  if (file.size === 0) throw new Error(`${file.name || "That file"} is empty.`);
  if (file.size > MAX_FILE_BYTES)
    throw new Error(`${file.name} is larger than 10 MB, the sandbox's limit per file.`);
  const dataUrl = await new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error(`${file.name} could not be read.`));
    reader.readAsDataURL(file);
  });
  const mimetype = file.type || "application/octet-stream";
  return {
    key: `attachment-${++attachmentIds}`,
    name: file.name || pastedName(mimetype),
    size: file.size,
    mimetype,
    filetype: extensionOf(file.name),
    data: dataUrl.slice(dataUrl.indexOf(",") + 1),
    preview: IMAGE.test(mimetype) ? dataUrl : undefined,
  };
}

/** One of the demo's sample files: sent by name, previewed from the server. */
export function sampleAttachment(sample) {
  return {
    key: `attachment-${++attachmentIds}`,
    name: sample.name,
    size: sample.size,
    mimetype: sample.mimetype,
    filetype: sample.filetype,
    sample: sample.name,
    preview: IMAGE.test(sample.mimetype) ? sample.url : undefined,
  };
}

/** What the server takes for an attachment: a sample by name, anything else as base64. */
export function attachmentPayload(a) {
  return a.sample ? { sample: a.sample } : { name: a.name, data: a.data };
}

/** Pasted screenshots have no name; Slack's client calls them image.png. */
function pastedName(mimetype) {
  const ext = mimetype.split("/")[1]?.replace("jpeg", "jpg") ?? "bin";
  return `image.${ext}`;
}

function extensionOf(name) {
  return name?.includes(".") ? name.split(".").pop().toLowerCase() : "file";
}

/** The files waiting to be sent, each with a Remove button. */
export function PendingAttachments({ attachments, onRemove }) {
  if (attachments.length === 0) return null;
  return html`<ul class="attachments" aria-label="Files to send">
    ${attachments.map(
      (a) => html`<li key=${a.key} class="attachment">
        ${
          a.preview
            ? html`<img class="attachment-thumb" src=${a.preview} alt="" />`
            : html`<${FileTile} filetype=${a.filetype} />`
        }
        <span class="file-text">
          <span class="file-name">${a.name}</span>
          <span class="file-meta">${formatSize(a.size)}</span>
        </span>
        <button type="button" class="attachment-remove" aria-label=${`Remove ${a.name}`} title="Remove" onClick=${() => onRemove(a.key)}>
          <${Icon} name="close" size=${12} />
        </button>
      </li>`,
    )}
  </ul>`;
}

/**
 * The composer's file buttons: attach from disk (a hidden file input), and the demo's sample files
 * (a menu, loaded on first open). `onFiles(FileList | File[])`, `onSample(sample)`.
 */
export function AttachButtons({ id, onFiles, onSample }) {
  const input = useRef(null);
  const box = useRef(null);
  const [open, setOpen] = useState(false);
  const [samples, setSamples] = useState(null);
  const [error, setError] = useState("");

  useEffect(() => {
    if (!open || samples) return;
    fetch("/sandbox/api/sample-files", { cache: "no-store" })
      .then((r) => r.json())
      .then((body) => setSamples(body.files ?? []))
      .catch(() => setError("The sample files could not be loaded."));
  }, [open, samples]);

  // A click anywhere else closes the menu.
  useEffect(() => {
    if (!open) return undefined;
    const outside = (event) => {
      if (!box.current?.contains(event.target)) setOpen(false);
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, [open]);

  const menuId = `${id}-samples`;
  return html`<span class="attach-buttons" ref=${box}>
    <input
      ref=${input}
      id=${`${id}-files`}
      type="file"
      multiple
      class="visually-hidden"
      tabindex="-1"
      aria-label="Choose files to attach"
      onChange=${(e) => {
        onFiles([...e.currentTarget.files]);
        e.currentTarget.value = "";
      }}
    />
    <button type="button" class="icon-button composer-tool" aria-label="Attach files" title="Attach files" onClick=${() => input.current?.click()}>
      <${Icon} name="attach" />
    </button>
    <button
      type="button"
      class="composer-tool sample-button"
      aria-haspopup="menu"
      aria-expanded=${open ? "true" : "false"}
      aria-controls=${open ? menuId : undefined}
      onClick=${() => setOpen(!open)}
    >
      Sample files
    </button>
    ${
      open
        ? html`<ul class="sample-menu" id=${menuId} role="menu" aria-label="Sample files" onKeyDown=${(e) => e.key === "Escape" && setOpen(false)}>
            ${error ? html`<li role="none" class="sample-note">${error}</li>` : null}
            ${samples === null && !error ? html`<li role="none" class="sample-note">Loading…</li>` : null}
            ${(samples ?? []).map(
              (s) => html`<li key=${s.name} role="none">
                <button
                  type="button"
                  role="menuitem"
                  class="sample-item"
                  onClick=${() => {
                    setOpen(false);
                    onSample(s);
                  }}
                >
                  <${FileTile} filetype=${s.filetype} />
                  <span class="file-text">
                    <span class="file-name">${s.name}</span>
                    <span class="file-meta">${s.filetype.toUpperCase()} · ${formatSize(s.size)}</span>
                  </span>
                </button>
              </li>`,
            )}
          </ul>`
        : null
    }
  </span>`;
}
