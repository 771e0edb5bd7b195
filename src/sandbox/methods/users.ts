import { integerArg, requiredString, stringArg } from "../api-args.ts";
import { SlackApiError } from "../api-error.ts";
import { apiUser } from "../api-objects.ts";
import type { MethodHandler } from "../method-types.ts";
import { paginate } from "../pagination.ts";

/** `users.info` and `users.list`. */
export const usersMethods: Record<string, MethodHandler> = {
  "users.info": (ctx) => {
    const id = requiredString(ctx.args, "user", "user_not_found");
    const user = ctx.workspace.getUser(id);
    if (!user) throw new SlackApiError("user_not_found");
    return { user: apiUser(ctx, user) };
  },

  "users.list": (ctx) => {
    const limit = integerArg(ctx.args, "limit");
    const cursor = stringArg(ctx.args, "cursor");
    const page = paginate(ctx.workspace.userRecords(), {
      ...(limit !== undefined ? { limit } : {}),
      ...(cursor ? { cursor } : {}),
    });
    return {
      members: page.items.map((u) => apiUser(ctx, u)),
      cache_ts: Math.floor(ctx.workspace.now() / 1000),
      response_metadata: { next_cursor: page.nextCursor },
    };
  },
};
