import type { App } from "@slack/bolt";
import type { Logger } from "../../core/logger.ts";
import type { OAuthInstall } from "./oauth-install.ts";

/** The events that end an installation (subscribed in `manifest.yml`). */
export const UNINSTALL_EVENTS = ["app_uninstalled", "tokens_revoked"] as const;

/**
 * `app_uninstalled` (and `tokens_revoked` of the bot's token): the installation is deleted, so its
 * tokens are no longer kept anywhere.
 */
export function registerUninstalls(
  app: App,
  install: Pick<OAuthInstall, "store" | "authorizer">,
  logger: Logger,
) {
  const forget = async (context: {
    teamId?: string;
    enterpriseId?: string;
    isEnterpriseInstall?: boolean;
  }) => {
    const ref = {
      teamId: context.teamId,
      enterpriseId: context.enterpriseId,
      isEnterpriseInstall: Boolean(context.isEnterpriseInstall),
    };
    await install.store.deleteInstallation(
      ref.isEnterpriseInstall
        ? { teamId: undefined, enterpriseId: ref.enterpriseId ?? "", isEnterpriseInstall: true }
        : { teamId: ref.teamId ?? "", enterpriseId: ref.enterpriseId, isEnterpriseInstall: false },
    );
    install.authorizer.forget(ref);
    logger.info(
      { teamId: ref.teamId, enterpriseId: ref.enterpriseId },
      "Slack app uninstalled: installation deleted",
    );
  };
  app.event("app_uninstalled", async ({ context }) => forget(context));
  app.event("tokens_revoked", async ({ event, context }) => {
    if ((event.tokens.bot ?? []).length > 0) await forget(context);
  });
}
