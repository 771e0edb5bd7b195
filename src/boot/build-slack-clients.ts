import type { WebClient } from "@slack/web-api";
import type { Config } from "../config.ts";
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
import type { SandboxSlack } from "./sandbox-slack.ts";

/**
 * Where Hermes's Slack is: the configured workspace, or the sandbox's emulator standing in for it.
 * HTTP mode carries the signing secret, Socket Mode the app-level token; `bot` is known only in the sandbox.
 */
export interface SlackTarget {
  botToken: string;
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
 * (`auth.test`, unless the sandbox already knows).
 */
export async function buildSlackClients(
  target: SlackTarget,
  o: { config: Config; logger: Logger; redactor: Redactor; metrics?: Metrics },
): Promise<SlackOutput> {
  const { logger, redactor } = o;
  // One scheduler of Web API calls for both clients: per-budget queues paced to Slack's rate limits.
  const webOptions = {
    ...(target.slackApiUrl ? { slackApiUrl: target.slackApiUrl } : {}),
    // Keep-alive node:http instead of the built-in fetch, as the model client (http-fetch.ts).
    fetch: httpFetch(),
    logger: slackLogger(logger, "web-api"),
    scheduler: new CallScheduler({
      logger: logger.child({ component: "slack-pacing" }),
      ...(o.metrics ? { onRateLimited: o.metrics.slackRateLimited } : {}),
    }),
    rateScale: o.config.env.HERMES_SLACK_RATE_SCALE,
  };
  const client = new PacedWebClient(target.botToken, {
    ...webOptions,
    lane: "deliver",
    retryConfig: { retries: 2, factor: 2, minTimeout: 300, maxTimeout: 3000, maxRetryTime: 15_000 },
  });
  const progressClient = new PacedWebClient(target.botToken, {
    ...webOptions,
    lane: "progress",
    retryConfig: { retries: 0 },
  });
  const bot = target.bot ?? (await authTest(client));
  const port = createWebSlackPort(client, { logger });
  const slack = redactingSlackPort(port, redactor);
  return { client, progressClient, slack, directory: port.directory, redactor, bot };
}

async function authTest(client: WebClient): Promise<BotIdentity> {
  const r = await client.auth.test();
  if (!r.user_id || !r.team_id)
    throw new Error("auth.test did not return the bot's user and team: check SLACK_BOT_TOKEN");
  return { userId: r.user_id, botId: r.bot_id, teamId: r.team_id };
}
