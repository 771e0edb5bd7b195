import { html } from "./html.js";

/** Small line icons as SVG vnodes (no emoji font needed); decorative, so hidden from screen readers. */
const PATHS = {
  thread: "M4 5h16v10H9l-5 4z",
  eye: "M2 12s3.5-6 10-6 10 6 10 6-3.5 6-10 6S2 12 2 12zm10 3a3 3 0 1 0 0-6 3 3 0 0 0 0 6z",
  menu: "M4 6h16M4 12h16M4 18h16",
  close: "M6 6l12 12M18 6L6 18",
  send: "M4 12l16-8-6 16-2-6z",
  lock: "M7 11V8a5 5 0 0 1 10 0v3M5 11h14v9H5z",
  attach:
    "M20 11.5l-7.8 7.8a5 5 0 0 1-7.1-7.1l8.5-8.5a3.3 3.3 0 0 1 4.7 4.7l-8.5 8.5a1.7 1.7 0 0 1-2.4-2.4l7.8-7.8",
};

export function Icon({ name, size = 16 }) {
  return html`<svg class="icon" width=${size} height=${size} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
    <path d=${PATHS[name]} fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />
  </svg>`;
}

/** A file's type as a coloured tile (CSV green, PDF red, others grey). */
export function FileTile({ filetype }) {
  const type = (filetype || "file").slice(0, 4).toUpperCase();
  return html`<span class=${`file-tile file-tile-${type.toLowerCase()}`} aria-hidden="true">${type}</span>`;
}
