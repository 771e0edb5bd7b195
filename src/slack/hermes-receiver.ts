import type { IncomingMessage, ServerResponse } from "node:http";
import type { App, Receiver, ReceiverEvent } from "@slack/bolt";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import {
  type HttpHandler,
  listenHttp,
  notFound,
  type RouteServer,
  serveRoutes,
} from "../http/route-server.ts";
import { createHttpAck } from "./http-ack.ts";
import { type IntakeEvents, isEventsApiCallback, processRecordFirst } from "./record-first.ts";
import { createRequestGuard, type GuardedBody, header, isEventsRequest } from "./request-guard.ts";

/**
 * A request no listener acked gets an answer after this long (Bolt's default: 3 s, with a 404). An
 * event is acked once it is recorded, and a hung database takes up to its statement bound (15 s) to
 * fail: the listener then acks and tells the user, so that answer must not be cut off.
 */
const NO_ACK_TIMEOUT_MS = 30_000;

export interface HermesReceiverOptions {
  signingSecret: string;
  logger: Logger;
  /** Served before Slack's endpoint: `/healthz`, and in sandbox mode the page. */
  routes: HttpHandler[];
  events?: IntakeEvents;
  /**
   * Runs each Slack request's handling as the workspace it is about (OAuth installs: its token, its
   * rate budgets); one it does not run (a workspace with no installation) is answered 200 and
   * dropped. Absent with one workspace.
   */
  within?: (body: Record<string, unknown>, handle: () => Promise<void>) => Promise<void>;
}

/**
 * Hermes' HTTP intake, a Bolt `Receiver`: one server for our routes and Slack's `POST /slack/events`
 * (events, clicks, slash commands). Each Slack request passes the request guard first (signature and
 * timestamps, size, body shape: 401/413/400/415, or a 200 for kinds Hermes ignores); what passes is
 * parsed once and goes to the App: `url_verification` and `ssl_check` are answered here, an Events
 * API callback is recorded before its ack (`processRecordFirst`), and a click or command gets an
 * `ack` its listener calls, or this receiver calls once the App is done with it. A Slack request
 * never gets a 500 for a listener's failure.
 */
export class HermesReceiver implements Receiver {
  readonly #o: HermesReceiverOptions;
  readonly #guard: ReturnType<typeof createRequestGuard>;
  #app: App | undefined;
  #server: RouteServer | undefined;

  constructor(options: HermesReceiverOptions) {
    this.#o = options;
    this.#guard = createRequestGuard({ signingSecret: options.signingSecret, logger: options.logger });
  }

  init(app: App): void {
    this.#app = app;
  }

  /** `host` limits where it listens (the sandbox: loopback only); all interfaces otherwise. */
  async start(port: number, host?: string): Promise<{ port: number }> {
    const onError = (err: unknown, req: IncomingMessage) =>
      this.#o.logger.error({ err, url: req.url }, "HTTP request failed");
    this.#server = await listenHttp((req, res) => this.#handle(req, res), port, host, onError);
    return { port: this.#server.port };
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    await server?.stop();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const slack = isEventsRequest(req);
    const arriving = this.#o.events?.arriving;
    if (slack && arriving) res.once("close", arriving());
    if (await serveRoutes(this.#o.routes, req, res)) return;
    if (!slack) return notFound(res);
    const guarded = await this.#guard(req, res);
    if (guarded) await this.#deliver(req, res, guarded);
  }

  async #deliver(req: IncomingMessage, res: ServerResponse, { body, sha256 }: GuardedBody): Promise<void> {
    if (body.ssl_check === "1") return void res.writeHead(200).end();
    if (body.type === "url_verification") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ challenge: body.challenge }));
    }
    const app = this.#app;
    if (!app) throw new Error("the receiver has no App (Bolt calls init when the App is built)");
    const request = {
      body,
      retryNum: retryNumOf(header(req, "x-slack-retry-num")),
      retryReason: header(req, "x-slack-retry-reason"),
      customProperties: { hermesBodySha256: sha256 },
    };
    const handle = () =>
      isEventsApiCallback(body) ? this.#recordFirst(app, res, request) : this.#process(app, res, request);
    const within = this.#o.within;
    if (!within) return handle();
    let handled = false;
    await within(body, () => {
      handled = true;
      return handle();
    });
    if (!handled && !res.headersSent) res.writeHead(200).end();
  }

  /** An Events API callback: its ack is the 200, sent once it is recorded. */
  async #recordFirst(app: App, res: ServerResponse, request: Omit<ReceiverEvent, "ack">): Promise<void> {
    const ack = async () => {
      if (!res.headersSent) res.writeHead(200).end();
    };
    const eventId = typeof request.body.event_id === "string" ? request.body.event_id : undefined;
    try {
      await processRecordFirst(app, { ...request, ack }, { logger: this.#o.logger, ...this.#o.events });
    } catch (err) {
      if (res.headersSent) {
        this.#o.logger.error(
          { err: errorMessage(err), eventId },
          "a Slack event's processing failed after its ack",
        );
        return;
      }
      // Nothing was recorded: Slack's retry delivers the event again.
      this.#o.logger.error(
        { err: errorMessage(err), eventId },
        "a Slack event failed before its ack; Slack will retry it",
      );
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("internal error");
    }
  }

  /**
   * A click, command or other request: a listener acks it. One that no listener took, or whose
   * listener failed before its ack, is acked once the App is done (Slack would otherwise show the
   * user an error), and the failure logged.
   */
  async #process(app: App, res: ServerResponse, request: Omit<ReceiverEvent, "ack">): Promise<void> {
    const type = request.body.type;
    const http = createHttpAck(res, NO_ACK_TIMEOUT_MS, () =>
      this.#o.logger.error({ type }, "a Slack request was not acked in time: answered 404"),
    );
    try {
      await app.processEvent({ ...request, ack: http.ack });
    } catch (err) {
      // A listener's failure is logged by `app.error` (`create-slack-app.ts`); this is Bolt's own.
      this.#o.logger.error({ err: errorMessage(err), type }, "Bolt could not process a Slack request");
    }
    if (http.acked) return;
    await http.ack();
    this.#o.logger.info({ type }, "Slack request no listener took: acked");
  }
}

function retryNumOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isNaN(n) ? undefined : n;
}
