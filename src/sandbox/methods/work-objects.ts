import { booleanArg, jsonArg, stringArg } from "../api-args.ts";
import { SlackApiError } from "../api-error.ts";
import type { MethodContext, MethodHandler } from "../method-types.ts";
import { requireScope } from "../scopes.ts";
import { workObjectsOf } from "../work-objects-state.ts";
import type { SandboxMessage } from "../workspace-types.ts";

/**
 * Work Objects: `entity.presentDetails` answers an `entity_details_requested` trigger with the panel's
 * entity (or an error to show), and `chat.unfurl` attaches Work Objects (`metadata.entities`) or
 * classic unfurls to a person's message whose links the app was told about (`link_shared`).
 */
export const workObjectMethods: Record<string, MethodHandler> = {
  "entity.presentDetails": (ctx) => {
    const triggerId = stringArg(ctx.args, "trigger_id");
    if (!triggerId) throw new SlackApiError("invalid_trigger_id");
    const state = workObjectsOf(ctx.workspace);
    const trigger = state.trigger(triggerId, ctx.workspace.now());
    if (!trigger) throw new SlackApiError("invalid_trigger_id");
    const metadata = jsonArg(ctx.args, "metadata", "invalid_metadata");
    const error = jsonArg(ctx.args, "error", "invalid_arguments");
    if (metadata === undefined && error === undefined) throw new SlackApiError("invalid_arguments");
    if (metadata !== undefined) {
      const entity = checkEntity(metadata, "invalid_metadata");
      const ref = entity.external_ref as { id?: unknown };
      if (entity.url !== trigger.entityUrl && (!trigger.externalRef || ref.id !== trigger.externalRef.id))
        throw new SlackApiError("entity_metadata_does_not_match_trigger");
    }
    if (error !== undefined && (!isObject(error) || typeof error.status !== "string"))
      throw new SlackApiError("invalid_arguments");
    state.present({
      user: trigger.user,
      triggerId,
      trigger,
      ...(metadata !== undefined ? { metadata: metadata as Record<string, unknown> } : {}),
      ...(error !== undefined ? { error: error as Record<string, unknown> } : {}),
      ...(booleanArg(ctx.args, "user_auth_required") ? { userAuthRequired: true } : {}),
      at: ctx.workspace.now(),
    });
    return {};
  },

  "chat.unfurl": (ctx) => {
    requireScope(ctx, "links:write");
    const message = unfurlTarget(ctx);
    const unfurls = jsonArg(ctx.args, "unfurls", "invalid_unfurls_format");
    const metadata = jsonArg(ctx.args, "metadata", "invalid_metadata_format");
    if (unfurls === undefined && metadata === undefined) throw new SlackApiError("missing_unfurls");
    if (unfurls !== undefined && !isObject(unfurls)) throw new SlackApiError("invalid_unfurls_format");
    const links = linksOf(message.text);
    let entities: Record<string, unknown>[] | undefined;
    if (metadata !== undefined) {
      if (!isObject(metadata) || !Array.isArray(metadata.entities) || metadata.entities.length === 0)
        throw new SlackApiError("invalid_metadata");
      entities = metadata.entities.map((e) => checkEntity(e, "invalid_metadata"));
      for (const e of entities) {
        if (typeof e.app_unfurl_url !== "string") throw new SlackApiError("invalid_metadata");
        if (!links.includes(e.app_unfurl_url)) throw new SlackApiError("cannot_unfurl_url");
      }
    }
    if (isObject(unfurls) && Object.keys(unfurls).some((url) => !links.includes(url)))
      throw new SlackApiError("cannot_unfurl_url");
    const previous = isObject(message.metadata) ? message.metadata : {};
    ctx.workspace.updateMessage(message.channel, message.ts, {
      metadata: {
        ...previous,
        ...(entities ? { entities } : {}),
        ...(isObject(unfurls) ? { unfurls } : {}),
      },
    });
    return {};
  },
};

/** The message `chat.unfurl` names: `channel` + `ts`, or `unfurl_id` + `source` (the emulator's unfurl ids are `channel:ts`). */
function unfurlTarget(ctx: MethodContext): SandboxMessage {
  const unfurlId = stringArg(ctx.args, "unfurl_id");
  const source = stringArg(ctx.args, "source");
  let channelId = stringArg(ctx.args, "channel");
  let ts = stringArg(ctx.args, "ts");
  if (unfurlId || source) {
    if (!unfurlId) throw new SlackApiError("missing_unfurl_id");
    if (source !== "composer" && source !== "conversations_history")
      throw new SlackApiError("invalid_source");
    [channelId, ts] = unfurlId.split(":");
  }
  if (!channelId) throw new SlackApiError("missing_channel");
  if (!ts) throw new SlackApiError("missing_ts");
  if (!ctx.workspace.getChannel(channelId)) throw new SlackApiError("cannot_find_channel");
  const message = ctx.workspace.getMessage(channelId, ts);
  if (!message) throw new SlackApiError("cannot_unfurl_message");
  return message;
}

/** The links of a message: `<url>` or `<url|label>` as Slack writes them, or a bare `https://…`. */
export function linksOf(text: string): string[] {
  const links = [
    ...text.matchAll(/<(https?:\/\/[^|>\s]+)(?:\|[^>]*)?>|(?<![<|])(https?:\/\/[^\s<>|]+)/g),
  ].map((m) => (m[1] ?? m[2])!);
  return [...new Set(links)];
}

/** An entity Slack accepts: a type, a url, an external_ref with an id, and a payload with a title. */
function checkEntity(v: unknown, error: string): Record<string, unknown> {
  if (!isObject(v)) throw new SlackApiError(error);
  const payload = v.entity_payload;
  const ref = v.external_ref;
  const title = isObject(payload) && isObject(payload.attributes) ? payload.attributes.title : undefined;
  if (
    typeof v.entity_type !== "string" ||
    typeof v.url !== "string" ||
    !isObject(ref) ||
    typeof ref.id !== "string" ||
    !isObject(title) ||
    typeof title.text !== "string"
  )
    throw new SlackApiError(error);
  return v;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
