import type { AppIdentity } from "./event-payloads.ts";
import { type ClickedButton, clickedAction, enterpriseFields } from "./interaction-payloads.ts";
import type { SandboxView } from "./workspace-types.ts";

/** What a person entered in a modal, as Slack sends it: `values[block_id][action_id]`. */
export type ViewStateValues = Record<string, Record<string, Record<string, unknown>>>;

/** A `block_actions` payload of a click in a view (the App Home, or a modal): no channel, no message. */
export function viewBlockActionsPayload(
  app: AppIdentity,
  input: {
    user: { id: string; name: string };
    teamDomain: string;
    view: SandboxView;
    action: ClickedButton;
    actionTs: string;
    triggerId: string;
  },
): Record<string, unknown> {
  const { action, view } = input;
  return {
    type: "block_actions",
    user: { id: input.user.id, username: input.user.name, name: input.user.name, team_id: app.teamId },
    api_app_id: app.apiAppId,
    token: app.verificationToken,
    container: { type: "view", view_id: view.id },
    trigger_id: input.triggerId,
    team: { id: app.teamId, domain: input.teamDomain },
    ...enterpriseFields(app),
    view,
    actions: [clickedAction(action, input.actionTs)],
  };
}

/** A `view_submission` payload: the modal with what the person entered in its `state`. */
export function viewSubmissionPayload(
  app: AppIdentity,
  input: {
    user: { id: string; name: string };
    teamDomain: string;
    view: SandboxView;
    values: ViewStateValues;
    triggerId: string;
  },
): Record<string, unknown> {
  const { user, view } = input;
  const { user: _owner, ...shown } = view as SandboxView & { user?: string };
  return {
    type: "view_submission",
    team: { id: app.teamId, domain: input.teamDomain },
    user: { id: user.id, username: user.name, name: user.name, team_id: app.teamId },
    api_app_id: app.apiAppId,
    token: app.verificationToken,
    trigger_id: input.triggerId,
    view: { ...shown, state: { values: input.values } },
    response_urls: [],
    ...enterpriseFields(app),
  };
}

/**
 * Whether Slack closes the modal after the app's answer to a submission: it does unless the answer
 * is a `response_action` that keeps it (`errors`, `update`, `push`).
 */
export function submissionCloses(status: number, body: string): boolean {
  if (status !== 200) return false;
  if (body.trim() === "") return true;
  try {
    const answer = JSON.parse(body) as { response_action?: unknown };
    return !["errors", "update", "push"].includes(String(answer.response_action));
  } catch {
    return true;
  }
}
