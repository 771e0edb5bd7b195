import type { types } from "@slack/bolt";

/** The `action_id` of the 👍/👎 buttons under an answer. */
export const FEEDBACK_ACTION_ID = "hermes.feedback";

export type FeedbackValue = "up" | "down";

/**
 * 👍/👎 under an answer (Slack's `feedback_buttons` in a `context_actions` block). Each button's
 * `value` is `up:<runId>` / `down:<runId>`, so a click names the run it rates and nothing else; the
 * name is checked against the clicked message and the clicker before anything is stored
 * (src/slack/feedback-click-check.ts).
 */
export function feedbackBlock(runId: string): types.KnownBlock {
  return {
    type: "context_actions",
    block_id: `hermes.feedback.${runId}`.slice(0, 255),
    elements: [
      {
        type: "feedback_buttons",
        action_id: FEEDBACK_ACTION_ID,
        positive_button: {
          text: { type: "plain_text", text: "👍" },
          accessibility_label: "This answer was helpful",
          value: `up:${runId}`,
        },
        negative_button: {
          text: { type: "plain_text", text: "👎" },
          accessibility_label: "This answer was not helpful",
          value: `down:${runId}`,
        },
      },
    ],
  } as types.KnownBlock;
}

/**
 * The run and value a feedback click names, or undefined for anything else (never trusted further).
 * Run ids are what the turn worker mints (a UUID) or a `run_…` id.
 */
export function parseFeedbackValue(value: unknown): { runId: string; value: FeedbackValue } | undefined {
  if (typeof value !== "string") return undefined;
  const m =
    /^(up|down):(run_[A-Za-z0-9_-]{1,64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(
      value,
    );
  return m ? { value: m[1] as FeedbackValue, runId: m[2] as string } : undefined;
}
