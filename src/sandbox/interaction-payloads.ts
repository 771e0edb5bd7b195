import type { AppIdentity } from "./event-payloads.ts";

/** Interactivity and slash command bodies, form-encoded as Slack sends them. */

export interface ClickedButton {
  actionId: string;
  blockId: string;
  value?: string;
  text: string;
  style?: string;
  type: string;
}

export interface BlockActionsInput {
  user: { id: string; name: string };
  teamDomain: string;
  channel: { id: string; name: string };
  message: Record<string, unknown>;
  messageTs: string;
  threadTs?: string;
  isEphemeral: boolean;
  action: ClickedButton;
  actionTs: string;
  responseUrl: string;
  triggerId: string;
}

/** An interaction payload's org fields: the workspace's Enterprise org, and whether the app is installed org-wide. */
export function enterpriseFields(app: AppIdentity): Record<string, unknown> {
  return {
    enterprise: app.enterpriseId ? { id: app.enterpriseId } : null,
    is_enterprise_install: app.isEnterpriseInstall ?? false,
  };
}

/** One clicked button as a `block_actions` payload's `actions` entry. */
export function clickedAction(action: ClickedButton, actionTs: string): Record<string, unknown> {
  return {
    action_id: action.actionId,
    block_id: action.blockId,
    text: { type: "plain_text", text: action.text, emoji: true },
    ...(action.value !== undefined ? { value: action.value } : {}),
    ...(action.style ? { style: action.style } : {}),
    type: action.type,
    action_ts: actionTs,
  };
}

/** A `block_actions` payload (shared/fixtures/slack/block_actions_approve.json). */
export function blockActionsPayload(app: AppIdentity, input: BlockActionsInput): Record<string, unknown> {
  const { action } = input;
  return {
    type: "block_actions",
    user: { id: input.user.id, username: input.user.name, name: input.user.name, team_id: app.teamId },
    api_app_id: app.apiAppId,
    token: app.verificationToken,
    container: {
      type: "message",
      message_ts: input.messageTs,
      channel_id: input.channel.id,
      is_ephemeral: input.isEphemeral,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    },
    trigger_id: input.triggerId,
    team: { id: app.teamId, domain: input.teamDomain },
    ...enterpriseFields(app),
    channel: input.channel,
    message: input.message,
    state: { values: {} },
    response_url: input.responseUrl,
    actions: [clickedAction(action, input.actionTs)],
  };
}

/** `payload=<url-encoded JSON>`, the body of every interactivity request. */
export function interactivityBody(payload: Record<string, unknown>): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export interface SlashCommandInput {
  user: { id: string; name: string };
  teamDomain: string;
  channel: { id: string; name: string };
  command: string;
  text: string;
  responseUrl: string;
  triggerId: string;
}

/** A slash command's form body, fields in Slack's order (shared/fixtures/slack/slash_command_audit.txt). */
export function slashCommandBody(app: AppIdentity, input: SlashCommandInput): string {
  return new URLSearchParams({
    token: app.verificationToken,
    team_id: app.teamId,
    team_domain: input.teamDomain,
    channel_id: input.channel.id,
    channel_name: input.channel.name,
    user_id: input.user.id,
    user_name: input.user.name,
    command: input.command,
    text: input.text,
    api_app_id: app.apiAppId,
    ...(app.enterpriseId ? { enterprise_id: app.enterpriseId } : {}),
    is_enterprise_install: String(app.isEnterpriseInstall ?? false),
    response_url: input.responseUrl,
    trigger_id: input.triggerId,
  }).toString();
}

/** Finds the clicked element in a message's blocks, to fill the action as Slack would. */
export function findButton(blocks: unknown, actionId: string, value?: string): ClickedButton | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks as Array<Record<string, unknown>>) {
    const elements = [
      ...(Array.isArray(block.elements) ? block.elements : []),
      ...(block.accessory ? [block.accessory] : []),
    ] as Array<Record<string, unknown>>;
    const feedback = elements
      .filter((el) => el.type === "feedback_buttons" && el.action_id === actionId)
      .map((el) => feedbackSide(el, value))
      .find((side) => side !== undefined);
    if (feedback) return { ...feedback, blockId: typeof block.block_id === "string" ? block.block_id : "" };
    const found = elements.find(
      (el) => el.action_id === actionId && (value === undefined || el.value === value),
    );
    if (!found) continue;
    const text = found.text as { text?: unknown } | undefined;
    return {
      actionId,
      blockId: typeof block.block_id === "string" ? block.block_id : "",
      text: typeof text?.text === "string" ? text.text : "",
      type: typeof found.type === "string" ? found.type : "button",
      ...(typeof found.value === "string" ? { value: found.value } : {}),
      ...(typeof found.style === "string" ? { style: found.style } : {}),
    };
  }
  return undefined;
}

/**
 * The clicked side of a `feedback_buttons` element (the one whose value was sent; the positive one
 * when none was named). Slack's action names the element, with that side's text and value.
 */
function feedbackSide(
  el: Record<string, unknown>,
  value: string | undefined,
): Omit<ClickedButton, "blockId"> | undefined {
  for (const side of [el.positive_button, el.negative_button] as Array<Record<string, unknown> | undefined>) {
    if (!side || typeof side.value !== "string" || (value !== undefined && side.value !== value)) continue;
    const text = side.text as { text?: unknown } | undefined;
    return {
      actionId: String(el.action_id),
      type: "feedback_buttons",
      value: side.value,
      text: typeof text?.text === "string" ? text.text : "",
    };
  }
  return undefined;
}
