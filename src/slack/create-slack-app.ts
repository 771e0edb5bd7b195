import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type App, type AppOptions, type Assistant, HTTPReceiver } from "@slack/bolt";
import { LogLevel } from "@slack/logger";
import { type HttpHandler, type RouteServer, startRouteServer } from "../boot/route-server.ts";
import { httpFetch } from "../http-fetch.ts";
import type { Logger } from "../logger.ts";
import { ackUnhandled } from "./ack-unhandled.ts";
import { deliverEventCallback, eventCallbackOf } from "./direct-events.ts";
import { type RecordEvent, RecordFirstApp } from "./record-first-app.ts";
import { createRequestGuard, type GuardedRequest, isEventsRequest } from "./request-guard.ts";
import { slackLogger } from "./slack-logger.ts";

type BoltApp = App;

export type { HttpHandler } from "../boot/route-server.ts";

/**
 * Bolt answers a request no listener acked after this long (its default: 3 s, with a 404). An event
 * is acked once it is recorded, and a hung database takes up to its statement bound (15 s) to fail:
 * the listener then acks and tells the user, so that answer must not be cut off by Bolt's 404.
 */
const NO_ACK_TIMEOUT_MS = 30_000;

export interface SlackAppOptions {
  botToken: string;
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
  /** Records an Events API callback before it is acked, and when Bolt may go on (see `RecordFirstApp`). */
  events?: {
    record: RecordEvent;
    afterAck?: () => Promise<void>;
    /**
     * HTTP mode: called as a request to `/slack/events` comes in; the function it returns, once that
     * request is answered. Follow-up work waits only while an answer is pending.
     */
    arriving?: () => () => void;
  };
  /** Hermes in Slack's assistant split view (`slack/assistant/create-assistant.ts`). */
  assistant?: Assistant;
}

export interface SlackAppHandle {
  app: BoltApp;
  /** `host` limits where it listens (the sandbox: loopback only); all interfaces otherwise. */
  start(port: number, host?: string): Promise<{ port: number }>;
  stop(): Promise<void>;
}

/**
 * The Bolt app. HTTP mode: one HTTP server with our routes and Bolt's receiver at `POST
 * /slack/events` (events, interactivity and slash commands) behind a guard: bad signatures and
 * timestamps more than 5 minutes off either way get 401, oversized bodies 413, malformed ones 400,
 * kinds Hermes does not handle a 200 ack — never a 500. Socket Mode: Bolt over
 * the socket, plus a small HTTP server for our routes. An event is acked once `events.record` has
 * recorded it, before Bolt's listeners run (`RecordFirstApp`).
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
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    for (const route of options.routes) if (await route(req, res)) return true;
    return false;
  };

  if (options.appToken) {
    const app = new RecordFirstApp(
      {
        token: options.botToken,
        appToken: options.appToken,
        socketMode: true,
        logger,
        ...knownBot(options),
        ...NO_CONVERSATION_STORE,
        clientOptions,
        // Socket Mode opens its connection with the installer's client, not `clientOptions`.
        installerOptions: { clientOptions: options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {} },
      } as AppOptions,
      { logger: options.logger, ...options.events },
    );
    if (options.assistant) app.assistant(options.assistant);
    let server: RouteServer | undefined;
    return {
      app,
      async start(port, host) {
        await app.start();
        server = await startRouteServer(options.routes, port, host);
        return { port: server.port };
      },
      async stop() {
        await app.stop();
        await server?.stop();
      },
    };
  }

  if (!options.signingSecret) throw new Error("SLACK_SIGNING_SECRET is required in HTTP mode");
  // Bolt's plain HTTP receiver, fed by our server: no Express routing on the way to an ack. Events API
  // callbacks, the bulk of requests, skip it too (`direct-events.ts`).
  const receiver = new HTTPReceiver({
    signingSecret: options.signingSecret,
    endpoints: ["/slack/events"],
    logger,
    processBeforeResponse: false,
    // The request guard in front has checked the signature and timestamp (both directions) of every
    // request this receiver routes: it matches the path as Bolt does (`isEventsRequest`). Bolt's
    // second check cost three more HMACs per event on the ack path.
    signatureVerification: false,
    unhandledRequestTimeoutMillis: NO_ACK_TIMEOUT_MS,
    // The guard in front has hashed the signed body: listeners see it as `context.hermesBodySha256`.
    customPropertiesExtractor: (req) => {
      const sha = (req as GuardedRequest).hermesBodySha256;
      return sha ? { hermesBodySha256: sha } : {};
    },
  });
  const app = new RecordFirstApp(
    {
      token: options.botToken,
      receiver,
      logger,
      clientOptions,
      ...knownBot(options),
      ...NO_CONVERSATION_STORE,
    },
    { logger: options.logger, ...options.events },
  );
  app.use(ackUnhandled(options.logger));
  if (options.assistant) app.assistant(options.assistant);
  const guard = createRequestGuard({ signingSecret: options.signingSecret, logger: options.logger });
  // Our routes first, then the request guard (signature, timestamps, body shape), then Bolt's router.
  const arriving = options.events?.arriving;
  const handle = async (req: GuardedRequest, res: ServerResponse) => {
    if (arriving && isEventsRequest(req)) {
      const answered = arriving();
      res.once("close", answered);
    }
    try {
      if ((await serve(req, res)) || (await guard(req, res))) return;
      // Events API callbacks go straight to the App (the guard parsed them); the rest through Bolt's receiver.
      const callback = eventCallbackOf(req);
      if (callback) await deliverEventCallback(app, req, res, callback, options.logger);
      else receiver.requestListener(req, res);
    } catch (err) {
      options.logger.error({ err, url: req.url }, "HTTP request failed");
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end("internal error");
    }
  };
  let server: Server | undefined;
  return {
    app,
    async start(port, host) {
      const s = createServer((req, res) => void handle(req, res));
      server = s;
      await new Promise<void>((resolve, reject) => {
        s.once("error", reject);
        if (host) s.listen(port, host, resolve);
        else s.listen(port, resolve);
      });
      return { port: (s.address() as AddressInfo).port };
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
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
