import { type App, type Receiver, SocketModeReceiver } from "@slack/bolt";
import { LogLevel, type Logger as SlackLogger } from "@slack/logger";
import type { Logger } from "../core/logger.ts";
import { type HttpHandler, type RouteServer, startRouteServer } from "../http/route-server.ts";
import { type IntakeEvents, processRecordFirst } from "./record-first.ts";

export interface SocketModeIntakeOptions {
  appToken: string;
  slackApiUrl?: string | undefined;
  /** Bolt's logger (`slackLogger`), for the socket client. */
  slackLogger: SlackLogger;
  logger: Logger;
  /** Served on the HTTP port beside the socket: `/healthz`. */
  routes: HttpHandler[];
  events?: IntakeEvents | undefined;
}

/**
 * Hermes' Socket Mode intake, a Bolt `Receiver`: Bolt's own `SocketModeReceiver` takes the envelopes,
 * and each Events API callback is recorded before its envelope is acked (`processRecordFirst`), as
 * over HTTP. Our routes get a small HTTP server beside the socket.
 */
export class SocketModeIntake implements Receiver {
  readonly #socket: SocketModeReceiver;
  readonly #o: SocketModeIntakeOptions;
  #server: RouteServer | undefined;

  constructor(options: SocketModeIntakeOptions) {
    this.#o = options;
    this.#socket = new SocketModeReceiver({
      appToken: options.appToken,
      logger: options.slackLogger,
      logLevel: LogLevel.INFO,
      // The socket is opened with this client, not the App's `clientOptions`.
      installerOptions: { clientOptions: options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {} },
    });
  }

  /**
   * Bolt's receiver hands every envelope to `app.processEvent`; it is given the App with that one
   * method taking the record-first path (`test/library-seams/bolt-receiver.test.ts` pins this).
   */
  init(app: App): void {
    const recordFirst = { logger: this.#o.logger, ...this.#o.events };
    this.#socket.init(
      new Proxy(app, {
        get: (target, key, receiver) =>
          key === "processEvent"
            ? (event: Parameters<App["processEvent"]>[0]) => processRecordFirst(target, event, recordFirst)
            : Reflect.get(target, key, receiver),
      }),
    );
  }

  async start(port: number, host?: string): Promise<{ port: number }> {
    await this.#socket.start();
    this.#server = await startRouteServer(this.#o.routes, port, host);
    return { port: this.#server.port };
  }

  async stop(): Promise<void> {
    await this.#socket.stop();
    const server = this.#server;
    this.#server = undefined;
    await server?.stop();
  }
}
