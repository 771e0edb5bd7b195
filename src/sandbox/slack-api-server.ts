import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../core/logger.ts";
import { silentLogger } from "../core/logger.ts";
import { type AgentAppSettings, agentSessionsOf } from "./agent-sessions.ts";
import type { ApiArgs } from "./api-args.ts";
import { SlackApiError } from "./api-error.ts";
import { API_METHODS, SANDBOX_SCOPES } from "./api-methods.ts";
import {
  EmulatorOAuth,
  type EmulatorOAuthOptions,
  type EmulatorOrg,
  firstOf,
  type TokenGrant,
} from "./emulator-oauth.ts";
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

/**
 * Web API methods an org-wide install's token must name a workspace for (`team_id`); other methods find
 * the workspace by the channel they name.
 */
const TEAM_ID_REQUIRED = new Set([
  "conversations.list",
  "conversations.create",
  "users.list",
  "users.conversations",
  "usergroups.list",
  "team.info",
]);

/** One recorded Web API call. */
export interface RecordedCall {
  method: string;
  args: ApiArgs;
  at: Date;
  /** The token it was made with (tests check which installation made it), and the workspace it acted in. */
  token?: string;
  teamId?: string;
  /** The JSON answer, once sent. */
  response?: Record<string, unknown>;
}

/**
 * A local Slack Web API: `POST /api/<method>` answered from a sandbox `Workspace` with Slack's
 * validation and error shapes, plus the URLs Slack hands out (file uploads and downloads,
 * `response_url`s, avatars). Records every call and can be told to fail the next calls of a method;
 * with `rateLimits` it answers 429 with `Retry-After` beyond Slack's published rates. More
 * workspaces (`addWorkspace`, in Enterprise orgs: `addOrg`) are served by token, and with
 * `enableOAuth` it plays Slack's OAuth v2 (`emulator-oauth.ts`): the authorize page, code and
 * refresh-token exchanges, org-wide installs whose token must name the workspace (`team_id`).
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
  /** What each accepted token stands for: a workspace, or an org-wide install. */
  private readonly grants = new Map<string, TokenGrant>();
  /** Every workspace served, by team id (the default one first). */
  private readonly teams = new Map<string, Workspace>();
  private readonly orgs = new Map<string, EmulatorOrg>();
  /** OAuth v2 (`enableOAuth`): the authorize page and `oauth.v2.access`. */
  oauth: EmulatorOAuth | undefined;
  private readonly responseUrls: ResponseUrls;
  private readonly uploads = new Map<string, { fileId: string; workspace: Workspace }>();
  private readonly logger: Logger;
  private readonly options: SlackApiEmulatorOptions;
  private server: Server | undefined;

  constructor(options: SlackApiEmulatorOptions = {}) {
    this.options = options;
    this.workspace = options.workspace ?? seedDemoWorkspace();
    this.teams.set(this.workspace.team.id, this.workspace);
    for (const token of options.tokens ?? [DEFAULT_BOT_TOKEN])
      this.grants.set(token, { kind: "team", workspace: this.workspace });
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

  /**
   * Serves another workspace (an OAuth install's, or one of an org: `enterpriseId`), reached with
   * `tokens` or with the tokens an install mints.
   */
  addWorkspace(workspace: Workspace, options: { tokens?: string[]; enterpriseId?: string } = {}): Workspace {
    if (options.enterpriseId) workspace.team.enterpriseId = options.enterpriseId;
    this.teams.set(workspace.team.id, workspace);
    for (const token of options.tokens ?? []) this.grants.set(token, { kind: "team", workspace });
    const enterpriseId = workspace.team.enterpriseId;
    if (enterpriseId) {
      const org = this.orgs.get(enterpriseId) ?? { id: enterpriseId, name: enterpriseId, teams: new Map() };
      org.teams.set(workspace.team.id, workspace);
      this.orgs.set(enterpriseId, org);
    }
    return workspace;
  }

  /** An Enterprise org and its name; its workspaces join it with `addWorkspace(…, { enterpriseId })`. */
  addOrg(org: { id: string; name: string; tokens?: string[] }): EmulatorOrg {
    const known = this.orgs.get(org.id) ?? { id: org.id, name: org.name, teams: new Map() };
    known.name = org.name;
    this.orgs.set(org.id, known);
    for (const token of org.tokens ?? []) this.grants.set(token, { kind: "org", org: known });
    return known;
  }

  /** A served workspace by team id. */
  workspaceOf(teamId: string): Workspace | undefined {
    return this.teams.get(teamId);
  }

  /** Turns on OAuth v2 for an app with these credentials (and token rotation, if asked). */
  enableOAuth(options: EmulatorOAuthOptions): EmulatorOAuth {
    this.oauth = new EmulatorOAuth(options, {
      defaultWorkspace: () => this.workspace,
      workspaceOf: (teamId) => this.teams.get(teamId),
      orgOf: (enterpriseId) => this.orgs.get(enterpriseId),
      grant: (token, grant) => this.grants.set(token, grant),
      now: () => this.workspace.now(),
    });
    return this.oauth;
  }

  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  /** A `response_url` for an interaction (a click on `target.messageTs`, or a slash command). */
  mintResponseUrl(target: ResponseUrlTarget): string {
    const workspace = (target.teamId ? this.workspaceOf(target.teamId) : undefined) ?? this.workspace;
    return `${this.origin}/response/${this.responseUrls.mint(target, workspace)}`;
  }

  /** Answers one HTTP request if it is for the emulator; false otherwise (to mount it in another server). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://sandbox.invalid");
    const path = url.pathname;
    if (req.method === "GET" && path === "/oauth/v2/authorize" && this.oauth) {
      const answer = this.oauth.authorize(url.searchParams);
      if (answer.status === 302) {
        res.writeHead(302, { location: answer.location }).end();
      } else sendText(res, 400, answer.error);
    } else if (path.startsWith("/api/")) {
      await this.handleApi(decodeURIComponent(path.slice("/api/".length)), req, res);
    } else if (req.method === "POST" && path.startsWith("/response/")) {
      const { fields } = await parseBody(await readBody(req), req.headers["content-type"]);
      const body = typeof fields.payload === "string" ? (JSON.parse(fields.payload) as ApiArgs) : fields;
      const answer = this.responseUrls.respond(path.slice("/response/".length), body);
      sendJson(res, answer.status, answer.body);
    } else if (req.method === "POST" && path.startsWith("/upload/v1/")) {
      const upload = this.uploads.get(path.slice("/upload/v1/".length));
      await receiveUpload(req, res, {
        workspace: upload?.workspace ?? this.workspace,
        fileId: upload?.fileId,
      });
    } else if (req.method === "GET" && path.startsWith("/files/")) {
      // As Slack's `url_private`: only with a bot token in `Authorization: Bearer …`.
      const token = bearerToken(req);
      const grant = token === undefined ? undefined : this.liveGrant(token);
      serveFile(res, {
        workspace: grant?.kind === "team" ? grant.workspace : this.workspace,
        url,
        auth: token === undefined ? "missing" : grant ? "ok" : "invalid",
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
    const call: RecordedCall = {
      method,
      args: request.args,
      at: new Date(this.workspace.now()),
      ...(request.token ? { token: request.token } : {}),
    };
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
      : await this.answer(method, request, call);
    sendJson(res, 200, call.response, { "x-oauth-scopes": [...this.scopes].join(",") });
  }

  /** A token's grant while it is valid (a rotated token expires). */
  private liveGrant(token: string): TokenGrant | undefined {
    const grant = this.grants.get(token);
    return grant && (grant.expiresAt === undefined || grant.expiresAt > this.workspace.now())
      ? grant
      : undefined;
  }

  /**
   * The workspace a call acts in: the token's, or for an org-wide install's token the one `team_id`
   * names (which the methods in `TEAM_ID_REQUIRED` must give), else the one holding the channel named.
   */
  private workspaceOfCall(grant: TokenGrant, method: string, args: ApiArgs): Workspace {
    if (grant.kind === "team") return grant.workspace;
    const teamId = typeof args.team_id === "string" ? args.team_id : undefined;
    if (teamId) {
      const named = grant.org.teams.get(teamId);
      if (!named) throw new SlackApiError("team_access_not_granted");
      return named;
    }
    if (TEAM_ID_REQUIRED.has(method)) throw new SlackApiError("missing_argument");
    const channel = args.channel ?? args.channel_id;
    const holding =
      typeof channel === "string"
        ? [...grant.org.teams.values()].find((w) => w.getChannel(channel))
        : undefined;
    return holding ?? firstOf(grant.org);
  }

  private async answer(
    method: string,
    request: { args: ApiArgs; token?: string },
    call: RecordedCall,
  ): Promise<Record<string, unknown>> {
    if (method === "oauth.v2.access" && this.oauth)
      return this.safely(method, () => this.oauth!.access(request.args));
    const handler = API_METHODS[method];
    if (!handler) return { ok: false, error: "unknown_method" };
    if (!request.token) return { ok: false, error: "not_authed" };
    const grant = this.grants.get(request.token);
    if (!grant) return { ok: false, error: "invalid_auth" };
    if (!this.liveGrant(request.token)) return { ok: false, error: "token_expired" };
    if (method === "auth.test" && grant.kind === "org" && request.args.team_id === undefined)
      return { ok: true, ...orgAuthTest(grant.org) };
    let workspace: Workspace;
    try {
      workspace = this.workspaceOfCall(grant, method, request.args);
    } catch (err) {
      if (err instanceof SlackApiError) return err.toBody();
      throw err;
    }
    call.teamId = workspace.team.id;
    const ctx: MethodContext = {
      method,
      args: request.args,
      token: request.token,
      scopes: this.scopes,
      workspace,
      origin: this.origin,
      // Unguessable, as Slack's are: a file id is part of its URL.
      newId: randomSlackId,
      uploadUrlFor: (fileId) => {
        const key = `${fileId}-${randomBytes(8).toString("hex")}`;
        this.uploads.set(key, { fileId, workspace });
        return `${this.origin}/upload/v1/${key}`;
      },
    };
    return this.safely(method, () => handler(ctx));
  }

  private async safely(
    method: string,
    run: () => Record<string, unknown> | Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    try {
      return { ok: true, ...(await run()) };
    } catch (err) {
      if (err instanceof SlackApiError) return err.toBody();
      this.logger.error({ err, method }, "sandbox slack method failed");
      return { ok: false, error: "internal_error" };
    }
  }
}

/** `auth.test` with an org-wide install's token: the org, not a workspace. */
function orgAuthTest(org: EmulatorOrg): Record<string, unknown> {
  const { bot } = firstOf(org);
  return {
    url: `https://${org.id.toLowerCase()}.enterprise.slack.com/`,
    team: org.name,
    user: bot.name,
    team_id: org.id,
    user_id: bot.userId,
    bot_id: bot.botId,
    enterprise_id: org.id,
    is_enterprise_install: true,
  };
}
