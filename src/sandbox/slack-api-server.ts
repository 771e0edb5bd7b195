import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../core/logger.ts";
import { silentLogger } from "../core/logger.ts";
import { type AgentAppSettings, agentSessionsOf } from "./agent-sessions.ts";
import type { ApiArgs } from "./api-args.ts";
import { SlackApiError } from "./api-error.ts";
import { API_METHODS, SANDBOX_SCOPES } from "./api-methods.ts";
import { FaultPlan } from "./faults.ts";
import { receiveUpload, serveAvatar, serveFile } from "./file-routes.ts";
import { bearerToken, sendJson, sendText } from "./http-util.ts";
import { refuseForeign } from "./loopback-guard.ts";
import type { MethodContext } from "./method-types.ts";
import { randomSlackId } from "./random-id.ts";
import { type EmulatorRateLimitOptions, EmulatorRateLimits } from "./rate-limits.ts";
import { parseBody, readApiRequest, readBody } from "./read-request.ts";
import { ResponseUrls, type ResponseUrlTarget } from "./response-urls.ts";
import { seedDemoWorkspace } from "./seed-demo-workspace.ts";
import type { Workspace } from "./workspace.ts";

export const DEFAULT_BOT_TOKEN = "xoxb-test";

export interface SlackApiEmulatorOptions {
  /** The workspace to serve; the seeded demo workspace by default. */
  workspace?: Workspace;
  /** Bot tokens the emulator accepts; `["xoxb-test"]` by default. */
  tokens?: string[];
  /** The scopes those tokens are granted; Hermes's (`SANDBOX_SCOPES`) by default. */
  scopes?: readonly string[];
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /**
   * The address the emulator is reachable at when its `handle()` is mounted in another server
   * (e.g. `http://localhost:3000`); upload, file and response URLs are built from it.
   */
  publicOrigin?: string;
  logger?: Logger;
  /**
   * Answer 429 with `Retry-After` beyond Slack's published rates (per method, `chat.postMessage` per
   * channel). Off unless asked for: `true`, or options (a rate scale, stricter bursts).
   */
  rateLimits?: boolean | EmulatorRateLimitOptions;
  /** How the app is installed for agent sessions (agent view on, `agent_session_stopped` subscribed by default). */
  agentApp?: Partial<AgentAppSettings>;
}

/** One recorded Web API call (the token is left out). */
export interface RecordedCall {
  method: string;
  args: ApiArgs;
  at: Date;
  /** The JSON answer, once sent. */
  response?: Record<string, unknown>;
}

/**
 * A local Slack Web API: `POST /api/<method>` answered from a sandbox `Workspace` with Slack's
 * validation and error shapes, plus the URLs Slack hands out (file uploads and downloads,
 * `response_url`s, avatars). Records every call and can be told to fail the next calls of a method;
 * with `rateLimits` it answers 429 with `Retry-After` beyond Slack's published rates.
 */
export class SlackApiEmulator {
  readonly workspace: Workspace;
  readonly calls: RecordedCall[] = [];
  readonly faults = new FaultPlan();
  /** The enforced rate limits, when on (`limited` counts the calls answered 429 per budget). */
  readonly rateLimits: EmulatorRateLimits | undefined;
  /**
   * The scopes the bot token is granted (reported in `x-oauth-scopes`). Remove one to see Slack's
   * answers without it: `missing_scope` from its methods; without `files:read`, `url_private` answers
   * Slack's HTML sign-in page instead of the file.
   */
  readonly scopes: Set<string>;
  private readonly tokens: Set<string>;
  private readonly responseUrls: ResponseUrls;
  private readonly uploads = new Map<string, string>();
  private readonly logger: Logger;
  private readonly options: SlackApiEmulatorOptions;
  private server: Server | undefined;

  constructor(options: SlackApiEmulatorOptions = {}) {
    this.options = options;
    this.workspace = options.workspace ?? seedDemoWorkspace();
    this.tokens = new Set(options.tokens ?? [DEFAULT_BOT_TOKEN]);
    this.scopes = new Set(options.scopes ?? SANDBOX_SCOPES);
    this.responseUrls = new ResponseUrls(this.workspace);
    this.logger = options.logger ?? silentLogger();
    const limits = options.rateLimits;
    this.rateLimits = limits ? new EmulatorRateLimits(limits === true ? {} : limits) : undefined;
    if (options.agentApp) Object.assign(agentSessionsOf(this.workspace).settings, options.agentApp);
  }

  async start(): Promise<this> {
    if (this.server) return this;
    const host = this.options.host ?? "127.0.0.1";
    const loopback = host === "127.0.0.1" || host === "localhost" || host === "::1";
    const server = createServer((req, res) => {
      // On loopback, as in the sandbox: only requests addressed to this server (no DNS rebinding).
      const port = (server.address() as AddressInfo).port;
      if (loopback && refuseForeign(req, res, port)) return;
      this.handle(req, res)
        .then((handled) => {
          if (!handled) sendText(res, 404, "not_found");
        })
        .catch((err: unknown) => {
          this.logger.error({ err, url: req.url }, "sandbox slack emulator failed");
          if (!res.headersSent) sendJson(res, 500, { ok: false, error: "internal_error" });
        });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port ?? 0, host, () => resolve());
    });
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** `http://127.0.0.1:PORT` (or `publicOrigin`). */
  get origin(): string {
    if (this.options.publicOrigin) return this.options.publicOrigin.replace(/\/$/, "");
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error("The Slack API emulator is not started.");
    return `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  }

  /** The Web API base URL for `WebClient`'s `slackApiUrl` / Bolt's `clientOptions.slackApiUrl`. */
  get url(): string {
    return `${this.origin}/api/`;
  }

  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  /** A `response_url` for an interaction (a click on `target.messageTs`, or a slash command). */
  mintResponseUrl(target: ResponseUrlTarget): string {
    return `${this.origin}/response/${this.responseUrls.mint(target)}`;
  }

  /** Answers one HTTP request if it is for the emulator; false otherwise (to mount it in another server). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://sandbox.invalid");
    const path = url.pathname;
    if (path.startsWith("/api/")) {
      await this.handleApi(decodeURIComponent(path.slice("/api/".length)), req, res);
    } else if (req.method === "POST" && path.startsWith("/response/")) {
      const { fields } = await parseBody(await readBody(req), req.headers["content-type"]);
      const body = typeof fields.payload === "string" ? (JSON.parse(fields.payload) as ApiArgs) : fields;
      const answer = this.responseUrls.respond(path.slice("/response/".length), body);
      sendJson(res, answer.status, answer.body);
    } else if (req.method === "POST" && path.startsWith("/upload/v1/")) {
      const fileId = this.uploads.get(path.slice("/upload/v1/".length));
      await receiveUpload(req, res, { workspace: this.workspace, fileId });
    } else if (req.method === "GET" && path.startsWith("/files/")) {
      // As Slack's `url_private`: only with a bot token in `Authorization: Bearer …`.
      const token = bearerToken(req);
      serveFile(res, {
        workspace: this.workspace,
        url,
        auth: token === undefined ? "missing" : this.tokens.has(token) ? "ok" : "invalid",
        canReadFiles: this.scopes.has("files:read"),
      });
    } else if (req.method === "GET" && path.startsWith("/avatars/")) {
      serveAvatar(res, { workspace: this.workspace, url });
    } else {
      return false;
    }
    return true;
  }

  private async handleApi(method: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    let request: Awaited<ReturnType<typeof readApiRequest>>;
    try {
      request = await readApiRequest(req);
    } catch {
      return sendJson(res, 200, { ok: false, error: "invalid_form_data" });
    }
    const call: RecordedCall = { method, args: request.args, at: new Date(this.workspace.now()) };
    this.calls.push(call);
    const channel = request.args.channel ?? request.args.channel_id;
    const fault = this.faults.take(method, typeof channel === "string" ? channel : undefined);
    if (fault?.kind === "rate_limited") {
      call.response = { ok: false, error: "ratelimited" };
      return sendJson(res, 429, call.response, { "retry-after": String(fault.retryAfterSeconds) });
    }
    if (fault?.kind === "http_status") return sendText(res, fault.status, "injected failure");
    const retryAfter = fault ? undefined : this.rateLimits?.take(method, request.args);
    if (retryAfter !== undefined) {
      call.response = { ok: false, error: "ratelimited" };
      return sendJson(res, 429, call.response, { "retry-after": String(retryAfter) });
    }
    call.response = fault
      ? { ok: false, error: fault.error, ...fault.extra }
      : await this.answer(method, request);
    sendJson(res, 200, call.response, { "x-oauth-scopes": [...this.scopes].join(",") });
  }

  private async answer(
    method: string,
    request: { args: ApiArgs; token?: string },
  ): Promise<Record<string, unknown>> {
    const handler = API_METHODS[method];
    if (!handler) return { ok: false, error: "unknown_method" };
    if (!request.token) return { ok: false, error: "not_authed" };
    if (!this.tokens.has(request.token)) return { ok: false, error: "invalid_auth" };
    const ctx: MethodContext = {
      method,
      args: request.args,
      token: request.token,
      scopes: this.scopes,
      workspace: this.workspace,
      origin: this.origin,
      // Unguessable, as Slack's are: a file id is part of its URL.
      newId: randomSlackId,
      uploadUrlFor: (fileId) => {
        const key = `${fileId}-${randomBytes(8).toString("hex")}`;
        this.uploads.set(key, fileId);
        return `${this.origin}/upload/v1/${key}`;
      },
    };
    try {
      return { ok: true, ...(await handler(ctx)) };
    } catch (err) {
      if (err instanceof SlackApiError) return err.toBody();
      this.logger.error({ err, method }, "sandbox slack method failed");
      return { ok: false, error: "internal_error" };
    }
  }
}
