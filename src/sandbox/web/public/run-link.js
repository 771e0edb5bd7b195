import { useContext } from "preact/hooks";
import { html, Workspace } from "./html.js";

/** The `event_type` of the metadata Hermes puts on a run's messages (src/slack/run-metadata.ts). */
const RUN_METADATA = "hermes_run";

/**
 * The run a message belongs to, from its metadata (Hermes' answers, failure and stop sentences and
 * approval cards carry `{event_type: "hermes_run", event_payload: {run_id}}`); undefined for others.
 */
export function runOfMessage(message) {
  const m = message?.metadata;
  const runId = m?.event_type === RUN_METADATA ? m.event_payload?.run_id : undefined;
  return typeof runId === "string" && runId ? runId : undefined;
}

/** "View run": opens the run's timeline in the Runs panel. */
export function RunLink({ runId }) {
  const ws = useContext(Workspace);
  if (!runId || !ws?.openRun) return null;
  return html`<button type="button" class="run-link" onClick=${() => ws.openRun(runId)}>View run</button>`;
}
