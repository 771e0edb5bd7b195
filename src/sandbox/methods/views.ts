import { randomBytes } from "node:crypto";
import { jsonArg, requiredString, stringArg } from "../api-args.ts";
import { invalidArguments, SlackApiError } from "../api-error.ts";
import { LIMITS } from "../block-kit-rules.ts";
import type { MethodHandler } from "../method-types.ts";
import { modalsOf } from "../modals.ts";
import { validateBlocks } from "../validate-blocks.ts";
import type { SandboxView } from "../workspace-types.ts";

/** Slack's limits on a modal's title, submit and close texts, and its private metadata. */
const MODAL_TEXT_MAX = 24;
const PRIVATE_METADATA_MAX = 3000;

/**
 * `views.publish`: a user's App Home; `views.open`: a modal, for the trigger id of a click or command
 * (exchanged once, within 3 s). Like Slack's `views.*`, refused blocks answer `invalid_arguments` with
 * the Block Kit messages (pointing into `/view/blocks`), not `invalid_blocks`.
 */
export const viewsMethods: Record<string, MethodHandler> = {
  "views.publish": (ctx) => {
    const userId = requiredString(ctx.args, "user_id");
    if (!ctx.workspace.getUser(userId)) throw new SlackApiError("user_not_found");
    const view = jsonArg(ctx.args, "view", "invalid_arguments");
    if (typeof view !== "object" || view === null || Array.isArray(view)) {
      throw invalidArguments(["missing required field: view"]);
    }
    const input = view as Record<string, unknown>;
    if (input.type !== "home")
      throw invalidArguments(["must be a valid enum value [json-pointer:/view/type]"]);
    if (!Array.isArray(input.blocks))
      throw invalidArguments(["missing required field: blocks [json-pointer:/view/blocks]"]);
    const errors = validateBlocks(input.blocks, { maxBlocks: LIMITS.blocksPerView, pointer: "/view/blocks" });
    if (errors.length > 0) throw invalidArguments(errors);

    const previous = ctx.workspace.getView(userId);
    const hash = stringArg(ctx.args, "hash");
    if (hash && previous && hash !== previous.hash) throw new SlackApiError("hash_conflict");
    const { bot, team } = ctx.workspace;
    const id = previous?.id ?? ctx.newId("V");
    const published: SandboxView = {
      ...input,
      id,
      team_id: team.id,
      type: "home",
      blocks: input.blocks,
      private_metadata: typeof input.private_metadata === "string" ? input.private_metadata : "",
      callback_id: typeof input.callback_id === "string" ? input.callback_id : "",
      external_id: typeof input.external_id === "string" ? input.external_id : "",
      state: { values: {} },
      hash: `${Math.floor(ctx.workspace.now() / 1000)}.${randomBytes(4).toString("hex")}`,
      clear_on_close: false,
      notify_on_close: false,
      root_view_id: id,
      previous_view_id: null,
      app_id: bot.appId,
      app_installed_team_id: team.id,
      bot_id: bot.botId,
    };
    return { view: ctx.workspace.publishView(userId, published) };
  },
  "views.open": (ctx) => {
    const triggerId = requiredString(ctx.args, "trigger_id");
    const view = jsonArg(ctx.args, "view", "invalid_arguments");
    if (typeof view !== "object" || view === null || Array.isArray(view)) {
      throw invalidArguments(["missing required field: view"]);
    }
    const input = view as Record<string, unknown>;
    const errors: string[] = [];
    if (input.type !== "modal") errors.push("must be a valid enum value [json-pointer:/view/type]");
    for (const field of ["title", "submit", "close"] as const) {
      const text = input[field] as { type?: unknown; text?: unknown } | undefined;
      if (text === undefined) {
        if (field === "title") errors.push("missing required field: title [json-pointer:/view/title]");
        continue;
      }
      if (text.type !== "plain_text" || typeof text.text !== "string")
        errors.push(`must be a plain_text object [json-pointer:/view/${field}]`);
      else if (text.text.length > MODAL_TEXT_MAX)
        errors.push(`must be less than ${MODAL_TEXT_MAX + 1} characters [json-pointer:/view/${field}/text]`);
    }
    const metadata = typeof input.private_metadata === "string" ? input.private_metadata : "";
    if (metadata.length > PRIVATE_METADATA_MAX)
      errors.push(
        `must be less than ${PRIVATE_METADATA_MAX + 1} characters [json-pointer:/view/private_metadata]`,
      );
    if (!Array.isArray(input.blocks))
      errors.push("missing required field: blocks [json-pointer:/view/blocks]");
    else
      errors.push(
        ...validateBlocks(input.blocks, { maxBlocks: LIMITS.blocksPerView, pointer: "/view/blocks" }),
      );
    const hasInput =
      Array.isArray(input.blocks) && input.blocks.some((b) => (b as { type?: unknown }).type === "input");
    if (hasInput && input.submit === undefined)
      errors.push("must provide a submit property when using input blocks [json-pointer:/view]");
    if (errors.length > 0) throw invalidArguments(errors);
    const user = modalsOf(ctx.workspace).exchange(triggerId);
    const { bot, team } = ctx.workspace;
    const id = ctx.newId("V");
    const opened = modalsOf(ctx.workspace).show({
      ...input,
      id,
      user,
      team_id: team.id,
      type: "modal",
      blocks: input.blocks as unknown[],
      private_metadata: metadata,
      callback_id: typeof input.callback_id === "string" ? input.callback_id : "",
      external_id: typeof input.external_id === "string" ? input.external_id : "",
      state: { values: {} },
      hash: `${Math.floor(ctx.workspace.now() / 1000)}.${randomBytes(4).toString("hex")}`,
      clear_on_close: input.clear_on_close === true,
      notify_on_close: input.notify_on_close === true,
      root_view_id: id,
      previous_view_id: null,
      app_id: bot.appId,
      app_installed_team_id: team.id,
      bot_id: bot.botId,
    });
    const { user: _user, ...shown } = opened;
    return { view: shown };
  },
};
