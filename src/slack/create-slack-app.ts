import { App, type Assistant, type Authorize } from "@slack/bolt";
import { LogLevel } from "@slack/logger";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { httpFetch } from "../http/http-fetch.ts";
import type { HttpHandler } from "../http/route-server.ts";
import { HermesReceiver } from "./hermes-receiver.ts";
import type { IntakeEvents } from "./record-first.ts";
import { slackLogger } from "./slack-logger.ts";
import { SocketModeIntake } from "./socket-mode-intake.ts";

export type { HttpHandler } from "../http/route-server.ts";

export interface SlackAppOptions {
  /** The one workspace's bot token; absent with OAuth installs (`authorize`). */
  botToken?: string;
  /** OAuth installs: the token of the workspace (or org) each request comes from. */
  authorize?: Authorize<boolean>;
  /** OAuth installs: each request handled as its workspace's (`HermesReceiver`'s `within`). */
  within?: (body: Record<string, unknown>, handle: () => Promise<void>) => Promise<void>;
  signingSecret?: string;
  /** Socket Mode when set (xapp-…); HTTP otherwise. */
  appToken?: string;
  slackApiUrl?: string;
  logger: Logger;
  /** Served before Bolt's routes: `/healthz`, and in sandbox mode the page. */
  routes: HttpHandler[];
  /** The web client retries on 429/5xx this many times; a turn must not hang for minutes. */
  retries?: number;
  /** Known bot ids (from auth.test at boot, or the sandbox): Bolt then makes no auth.test of its own. */
  bot?: { userId: string; botId?: string };
  /** Records an Events API callback before it is acked, and says when Bolt may go on (`processRecordFirst`). */
  events?: IntakeEvents;
  /** Hermes in Slack's assistant split view (`slack/assistant/create-assistant.ts`). */
  assistant?: Assistant;
}

export interface SlackAppHandle {
  app: App;
  /** `host` limits where it listens (the sandbox: loopback only); all interfaces otherwise. */
  start(port: number, host?: string): Promise<{ port: number }>;
  stop(): Promise<void>;
}

/**
 * The Bolt app and its receiver, which owns the intake. HTTP mode (`HermesReceiver`): one HTTP server
 * with our routes and `POST /slack/events` (events, interactivity and slash commands) behind a guard:
 * bad signatures and timestamps more than 5 minutes off either way get 401, oversized bodies 413,
 * malformed ones 400, kinds Hermes does not handle a 200 ack — never a 500. Socket Mode
 * (`SocketModeIntake`): Bolt's receiver over the socket, plus a small HTTP server for our routes.
 * Either way an event is acked once `events.record` has recorded it, before Bolt's listeners run.
 */
export function createSlackApp(options: SlackAppOptions): SlackAppHandle {
  const logger = slackLogger(options.logger, "bolt");
  const clientOptions = {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    fetch: httpFetch(),
    // Bounded on purpose: a few quick retries, never Slack's default of 10 over half an hour.
    retryConfig: {
      retries: options.retries ?? 2,
      factor: 2,
      minTimeout: 300,
      maxTimeout: 3000,
      maxRetryTime: 15_000,
    },
    logger: slackLogger(options.logger, "web-api"),
    logLevel: LogLevel.WARN,
  };
  const receiver = options.appToken
    ? new SocketModeIntake({
        appToken: options.appToken,
        slackApiUrl: options.slackApiUrl,
        slackLogger: logger,
        logger: options.logger,
        routes: options.routes,
        events: options.events,
      })
    : new HermesReceiver({
        signingSecret: requireSigningSecret(options.signingSecret),
        logger: options.logger,
        routes: options.routes,
        ...(options.events ? { events: options.events } : {}),
        ...(options.within ? { within: options.within } : {}),
      });
  const app = new App({
    ...(options.authorize ? { authorize: options.authorize } : { token: options.botToken }),
    receiver,
    logger,
    clientOptions,
    ...knownBot(options),
    ...NO_CONVERSATION_STORE,
  });
  // Over HTTP a listener's failure is logged and the request acked (`HermesReceiver`), never a 500.
  if (!options.appToken)
    app.error(async (err) => options.logger.error({ err: errorMessage(err) }, "a Slack listener failed"));
  if (options.assistant) app.assistant(options.assistant);
  return {
    app,
    start: (port, host) => receiver.start(port, host),
    stop: () => receiver.stop(),
  };
}

function requireSigningSecret(secret: string | undefined): string {
  if (!secret) throw new Error("SLACK_SIGNING_SECRET is required in HTTP mode");
  return secret;
}

/**
 * Hermes keeps threads in its own session store: Bolt's per-conversation store (on by default, in
 * memory) would only cost a lookup per request and memory per conversation.
 */
const NO_CONVERSATION_STORE = { convoStore: false } as const;

function knownBot(options: SlackAppOptions) {
  return options.bot?.botId
    ? { botId: options.bot.botId, botUserId: options.bot.userId, tokenVerificationEnabled: false }
    : {};
}
