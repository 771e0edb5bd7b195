import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthorizeResult } from "@slack/bolt";
import { type CodedError, type Installation, InstallProvider } from "@slack/oauth";
import type { OAuthSettings } from "../../config.ts";
import { BOT_SCOPES } from "../../core/bot-scopes.ts";
import type { Logger } from "../../core/logger.ts";
import { httpFetch } from "../../http/http-fetch.ts";
import type { HttpHandler } from "../../http/route-server.ts";
import type { Database } from "../../store/db.ts";
import { slackLogger } from "../slack-logger.ts";
import { createPgInstallationStore, type PgInstallationStore } from "./pg-installation-store.ts";
import { createTeamAuthorizer, type TeamAuthorizer, type TeamRef } from "./team-authorizer.ts";
import { createTokenCipher } from "./token-cipher.ts";

export const INSTALL_PATH = "/slack/install";
export const REDIRECT_PATH = "/slack/oauth_redirect";

export interface OAuthInstall {
  store: PgInstallationStore;
  authorizer: TeamAuthorizer;
  /** `GET /slack/install` (sets the state cookie, redirects to Slack) and `GET /slack/oauth_redirect`. */
  routes: HttpHandler[];
  /** Bolt's `authorize`: the token of the workspace (or org) a request comes from. */
  authorize(source: TeamRef): Promise<AuthorizeResult>;
}

/**
 * Installs through OAuth with `@slack/oauth`'s `InstallProvider`: the install path sets a signed state
 * (`SLACK_STATE_SECRET`) in a cookie and redirects to Slack's authorize page; the redirect checks the
 * state against the cookie, exchanges the code (`oauth.v2.access`) and stores the installation
 * encrypted (`pg-installation-store.ts`). Workspace and org-wide installs alike; tokens that rotate are
 * refreshed by `authorize` before they expire (`team-authorizer.ts`).
 */
export function createOAuthInstall(o: {
  settings: OAuthSettings;
  db: Database;
  logger: Logger;
  slackApiUrl?: string | undefined;
}): OAuthInstall {
  const { settings } = o;
  const log = o.logger.child({ component: "slack-oauth" });
  const cipher = createTokenCipher(settings);
  const store = createPgInstallationStore({ db: o.db, cipher, logger: o.logger });
  const installUrlOptions = {
    scopes: settings.scopes ?? [...BOT_SCOPES],
    ...(settings.redirectUri ? { redirectUri: settings.redirectUri } : {}),
  };
  const installer = new InstallProvider({
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    stateSecret: settings.stateSecret,
    installationStore: store,
    installUrlOptions,
    directInstall: true,
    ...(settings.authorizeUrl ? { authorizationUrl: settings.authorizeUrl } : {}),
    logger: slackLogger(o.logger, "slack-oauth"),
    clientOptions: { ...(o.slackApiUrl ? { slackApiUrl: o.slackApiUrl } : {}), fetch: httpFetch() },
  });
  const authorizer = createTeamAuthorizer({ installer, store, logger: log });

  const callbackOptions = {
    success: (installation: Installation, _options: unknown, _req: IncomingMessage, res: ServerResponse) => {
      // A reinstall's token replaces the one kept for it.
      authorizer.forget({
        teamId: installation.team?.id,
        enterpriseId: installation.enterprise?.id,
        isEnterpriseInstall: Boolean(installation.isEnterpriseInstall),
      });
      const where = installation.isEnterpriseInstall
        ? `the ${installation.enterprise?.name ?? installation.enterprise?.id ?? ""} organization`
        : (installation.team?.name ?? installation.team?.id ?? "your workspace");
      page(
        res,
        200,
        `Hermes is installed in ${where}. Mention @hermes in a channel or send it a direct message.`,
      );
    },
    failure: (error: CodedError, _options: unknown, _req: IncomingMessage, res: ServerResponse) => {
      const refused = ["slack_oauth_missing_state", "slack_oauth_invalid_state", "slack_oauth_missing_code"];
      const userError = refused.includes(error.code);
      log.warn({ code: error.code }, "a Slack install did not complete");
      page(
        res,
        userError ? 400 : 500,
        userError
          ? "This install link has expired or was opened in another browser. Start again from the install page."
          : "Slack did not complete the install. Try again in a minute; if it keeps failing, tell your Slack admin.",
      );
    },
  };

  const routes: HttpHandler[] = [
    async (req, res) => {
      if (req.method !== "GET" || pathOf(req) !== INSTALL_PATH) return false;
      await installer.handleInstallPath(req, res, undefined, installUrlOptions);
      return true;
    },
    async (req, res) => {
      if (req.method !== "GET" || pathOf(req) !== REDIRECT_PATH) return false;
      await installer.handleCallback(req, res, callbackOptions);
      return true;
    },
  ];

  return {
    store,
    authorizer,
    routes,
    async authorize(source) {
      const auth = await authorizer.authorize(source);
      return {
        botToken: auth.botToken,
        teamId: auth.teamId,
        ...(auth.enterpriseId ? { enterpriseId: auth.enterpriseId } : {}),
        ...(auth.botId ? { botId: auth.botId } : {}),
        ...(auth.botUserId ? { botUserId: auth.botUserId } : {}),
      };
    },
  };
}

function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? "/", "http://localhost").pathname;
  } catch {
    return "";
  }
}

function page(res: ServerResponse, status: number, sentence: string): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><meta charset="utf-8"><title>Hermes</title><p>${escapeHtml(sentence)}</p>`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
