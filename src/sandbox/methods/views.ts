import { randomBytes } from "node:crypto";
import { jsonArg, requiredString, stringArg } from "../api-args.ts";
import { invalidArguments, SlackApiError } from "../api-error.ts";
import { LIMITS } from "../block-kit-rules.ts";
import type { MethodHandler } from "../method-types.ts";
import { validateBlocks } from "../validate-blocks.ts";
import type { SandboxView } from "../workspace-types.ts";

/**
 * `views.publish`: a user's App Home. Like Slack's `views.*`, refused blocks answer `invalid_arguments`
 * with the Block Kit messages (pointing into `/view/blocks`), not `invalid_blocks`.
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
};
