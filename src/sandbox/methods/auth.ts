import { SlackApiError } from "../api-error.ts";
import type { MethodHandler } from "../method-types.ts";

/** `auth.test` (Bolt calls it at start to learn the bot's ids) and `apps.connections.open`. */
export const authMethods: Record<string, MethodHandler> = {
  "auth.test": (ctx) => {
    const { team, bot } = ctx.workspace;
    return {
      url: `https://${team.domain}.slack.com/`,
      team: team.name,
      user: bot.name,
      team_id: team.id,
      user_id: bot.userId,
      bot_id: bot.botId,
      is_enterprise_install: false,
    };
  },

  // Socket Mode needs an app-level (xapp-) token and a WebSocket the sandbox does not offer.
  "apps.connections.open": () => {
    throw new SlackApiError("not_allowed_token_type");
  },
};
