import htm from "htm";
import { createContext, h } from "preact";

/** JSX-like templates without a build step: html`<p>${text}</p>` makes preact vnodes, text stays text. */
export const html = htm.bind(h);

/**
 * What every message needs to know: who is looking, names for ids, and what a click does.
 * `{ me, userById, channelById, bot, onAction, openThread, confirm }`
 */
export const Workspace = createContext(null);
