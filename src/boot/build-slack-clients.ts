import type { WebClient } from "@slack/web-api";
import type { Config, OAuthSettings } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import type { Metrics } from "../core/metrics.ts";
import { httpFetch } from "../http/http-fetch.ts";
import type { Redactor } from "../policy/redact.ts";
import { CallScheduler } from "../slack/rate-limit/call-scheduler.ts";
import { PacedWebClient } from "../slack/rate-limit/paced-web-client.ts";
import { redactingSlackPort } from "../slack/redacting-slack-port.ts";
import { slackLogger } from "../slack/slack-logger.ts";
import type { BotIdentity, SlackOutput } from "../slack/slack-output.ts";
import { createWebSlackPort } from "../slack/web-slack-port.ts";
import type { Database } from "../store/db.ts";
import type { SandboxSlack } from "./sandbox-slack.ts";

/**
 * Where Hermes's Slack is: the configured workspace, or the sandbox's emulator standing in for it.
 * HTTP mode carries the signing secret, Socket Mode the app-level token; `bot` is known only in the sandbox.
 */
export interface SlackTarget {
  /** The one workspace's bot token; absent with OAuth installs (`oauth`). */
  botToken?: string;
  /** OAuth installs: the app's credentials and the key of the stored tokens. */
  oauth?: OAuthSettings;
  signingSecret?: string;
  appToken?: string;
  slackApiUrl?: string;
  bot?: BotIdentity;
}

/**
 * The Slack this process talks to. With no Slack token the sandbox (Web API emulator, page) is
 * loaded and prepared here, on `PORT`; it is never loaded otherwise.
 */
export async function prepareSlackTarget(
  config: Config,
  logger: Logger,
): Promise<{ target: SlackTarget; sandbox?: SandboxSlack }> {
  const { slack, env } = config;
  const slackApiUrl = env.SLACK_API_URL;
  if (slack.mode === "http") {
    const { botToken, signingSecret } = slack;
    return { target: { botToken, signingSecret, ...(slackApiUrl ? { slackApiUrl } : {}) } };
  }
  if (slack.mode === "oauth") {
    const { signingSecret, oauth } = slack;
    return { target: { signingSecret, oauth, ...(slackApiUrl ? { slackApiUrl } : {}) } };
  }
  if (slack.mode === "socket") {
    const { botToken, appToken } = slack;
    return { target: { botToken, appToken, ...(slackApiUrl ? { slackApiUrl } : {}) } };
  }
  const sandbox = await (await import("./sandbox-slack.ts")).prepareSandboxSlack({
    port: env.PORT,
    admins: env.HERMES_ADMINS,
    logger,
    dataDir: env.HERMES_DATA_DIR,
  });
  const { botToken, signingSecret, bot } = sandbox;
  return { sandbox, target: { botToken, signingSecret, slackApiUrl: sandbox.slackApiUrl, bot } };
}

/**
 * The bot's two paced Web API clients, the tools' redacting Slack port, and who the bot is
 * (`auth.test`, unless the sandbox already knows). With OAuth installs, each workspace gets these of
 * its own on first use, and what is returned follows the workspace whose work is running.
 */
export async function buildSlackClients(
  target: SlackTarget,
  o: { config: Config; logger: Logger; redactor: Redactor; metrics?: Metrics; db?: Database },
): Promise<SlackOutput> {
  if (target.oauth) return buildInstalledSlack(target, target.oauth, o);
  if (!target.botToken) throw new Error("a Slack bot token is required outside OAuth installs");
  const output = slackOutputFor({ token: target.botToken }, o, target.slackApiUrl);
  const bot = target.bot ?? (await authTest(output.client));
  return { ...output, bot };
}

/** OAuth installs: the install routes, the encrypted store, and one output per workspace. */
async function buildInstalledSlack(
  target: SlackTarget,
  settings: OAuthSettings,
  o: { config: Config; logger: Logger; redactor: Redactor; metrics?: Metrics; db?: Database },
): Promise<SlackOutput> {
  if (!o.db) throw new Error("OAuth installs need the database (their tokens are stored there)");
  // Loaded only for OAuth installs: a process with one bot token never reads these modules.
  const [{ createOAuthInstall }, { createSlackWorkspaces }, { teamOutputFacade }] = await Promise.all([
    import("../slack/oauth/oauth-install.ts"),
    import("../slack/oauth/slack-workspaces.ts"),
    import("../slack/oauth/team-output-facade.ts"),
  ]);
  const install = createOAuthInstall({
    settings,
    db: o.db,
    logger: o.logger,
    slackApiUrl: target.slackApiUrl,
  });
  // Rows still sealed with the previous key are re-sealed now, so that key can then be removed.
  if (settings.previousKey)
    void install.store
      .resealAll()
      .catch((err: unknown) =>
        o.logger.error(
          { err: String(err) },
          "could not re-seal the stored installations with the current key",
        ),
      );
  const workspaces = createSlackWorkspaces({
    authorizer: install.authorizer,
    logger: o.logger,
    // Every call names the workspace: an org-wide install's token needs `team_id`, a workspace's ignores it.
    build: (team) => ({
      ...slackOutputFor(
        { tokenSource: team.token, teamId: team.teamId },
        { ...o, logger: o.logger.child({ teamId: team.teamId }) },
        target.slackApiUrl,
      ),
      bot: team.bot,
    }),
  });
  const facade = teamOutputFacade(workspaces, o.redactor, { slackApiUrl: target.slackApiUrl });
  return { ...facade, installs: { install, workspaces } };
}

/** The paced clients (one scheduler for both: per-budget queues paced to Slack's rate limits) and the port. */
function slackOutputFor(
  auth: { token: string } | { tokenSource: () => Promise<string>; teamId: string },
  o: { config: Config; logger: Logger; redactor: Redactor; metrics?: Metrics },
  slackApiUrl: string | undefined,
): Omit<SlackOutput, "bot"> {
  const { logger, redactor } = o;
  const webOptions = {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    // Keep-alive node:http instead of the built-in fetch, as the model client (http-fetch.ts).
    fetch: httpFetch(),
    logger: slackLogger(logger, "web-api"),
    scheduler: new CallScheduler({
      logger: logger.child({ component: "slack-pacing" }),
      ...(o.metrics ? { onRateLimited: o.metrics.slackRateLimited } : {}),
    }),
    rateScale: o.config.env.HERMES_SLACK_RATE_SCALE,
    ...("tokenSource" in auth ? { tokenSource: auth.tokenSource, teamId: auth.teamId } : {}),
  };
  const token = "token" in auth ? auth.token : undefined;
  const client = new PacedWebClient(token, {
    ...webOptions,
    lane: "deliver",
    retryConfig: { retries: 2, factor: 2, minTimeout: 300, maxTimeout: 3000, maxRetryTime: 15_000 },
  });
  const progressClient = new PacedWebClient(token, {
    ...webOptions,
    lane: "progress",
    retryConfig: { retries: 0 },
  });
  const port = createWebSlackPort(client, { logger });
  const slack = redactingSlackPort(port, redactor);
  return { client, progressClient, slack, directory: port.directory, redactor };
}

async function authTest(client: WebClient): Promise<BotIdentity> {
  const r = await client.auth.test();
  if (!r.user_id || !r.team_id)
    throw new Error("auth.test did not return the bot's user and team: check SLACK_BOT_TOKEN");
  return { userId: r.user_id, botId: r.bot_id, teamId: r.team_id };
}
