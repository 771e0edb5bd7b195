import type { types } from "@slack/bolt";

/** The `event_type` of the message metadata naming the run a message belongs to. */
export const RUN_METADATA_TYPE = "hermes_run";

/**
 * Slack message metadata on a run's answer, failure or stop sentence and approval cards:
 * `{event_type: "hermes_run", event_payload: {run_id}}`. It lets a client (the sandbox page's
 * "View run") or another app find the run behind a message; the run id is no secret (the failure
 * sentence shows it), and the run itself is only shown to admins and the requester.
 */
export function runMetadata(runId: string): types.MessageMetadata {
  return { event_type: RUN_METADATA_TYPE, event_payload: { run_id: runId } };
}
