import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Logger, silentLogger } from "../../core/logger.ts";
import type { RunQuery } from "../../store/run-query.ts";
import { agentSessionsOf } from "../agent-sessions.ts";
import { assistantThreadsOf } from "../assistant-threads.ts";
import { avatarSvg } from "../avatar-svg.ts";
import { sendFileBytes } from "../file-routes.ts";
import { fileTypeOf } from "../file-types.ts";
import { sendText } from "../http-util.ts";
import { listSampleFiles, sampleFileBytes } from "../sample-files.ts";
import type { WorkObjectSender } from "../work-object-events.ts";
import type { Workspace } from "../workspace.ts";
import { createAgentActions, isDmOf } from "./agent-actions.ts";
import { asQuerySchema, MAX_MESSAGE_BODY_BYTES } from "./api-inputs.ts";
import { createAssistantActions } from "./assistant-actions.ts";
import { openEventStream } from "./event-stream.ts";
import { PageApiError, readJson, sendError, sendOk } from "./json-http.ts";
import { createPageActions, type PageSender, person } from "./page-actions.ts";
import { createRunsRoutes } from "./runs-routes.ts";
import { type Asset, pageHtml, publicAssets, vendorAssets } from "./static-assets.ts";
import { canDownload, pagePeople, pageState } from "./user-view.ts";
import { createWorkObjectRoutes } from "./work-object-routes.ts";

export type { PageSender } from "./page-actions.ts";
export type { PageEvent, PageState } from "./user-view.ts";

/** An audit_log row as the admin panel shows it (`AuditRow` from store/audit-chain.ts is one). */
export interface AuditRowLike {
  id: number;
  createdAt: string | Date;
  action: string;
  tool: string;
  userId?: string | null;
  actorId?: string | null;
  approvalId?: string | null;
  /** The run the row belongs to: the panel links it to the Runs panel. */
  runId?: string | null;
  resultSummary?: string | null;
  error?: string | null;
  durationMs?: number | null;
}

export interface AuditFeed {
  rows: AuditRowLike[];
  /** The hash chain check: ok with the row count, or the first row that does not match. */
  verify: { ok: boolean; rows?: number; rowId?: number; reason?: string };
}

export interface SandboxWebOptions {
  /** The sandbox workspace; taken from `emulator` when not given. */
  workspace?: Workspace;
  emulator?: { workspace: Workspace };
  /** The events sender pointed at the bot's receiver, with `slack: emulator`. */
  sender: PageSender;
  /** User ids who see the audit panel (HERMES_ADMINS). */
  admins: readonly string[];
  /**
   * Recent audit rows, newest first, and the chain's verify result; no panel data without it.
   * `opened`: the panel was just opened by `reader`, a read the audit log records (`audit.queried`).
   */
  auditFeed?: (read: { reader: string; opened: boolean }) => Promise<AuditFeed>;
  /**
   * Whether a reader is an admin for the Runs panel, by the rule `/hermes runs` uses (HERMES_ADMINS
   * or a level stored in `users`); without it, `admins` alone decides.
   */
  isAdmin?: (userId: string) => Promise<boolean>;
  /** Run records for the Runs panel (admins: every run; others: their own); empty without it. */
  runQuery?: RunQuery;
  /** Work Object events (`entity_details_requested`, the detail panel's clicks); no panel without it. */
  workObjects?: WorkObjectSender;
  /** The banner line: which model answers, or that Hermes runs in command mode. */
  modelInfo: string;
  logger?: Logger;
}

export interface SandboxWeb {
  /** Answers a request for the page or its API; false when the path is not the page's. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Ends the open event streams (before the server closes). */
  close(): void;
}

const PAGE_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/**
 * The sandbox's Slack-like page at `/`, its assets under `/sandbox/static` and `/sandbox/vendor`,
 * and its API under `/sandbox/api`. The page acts as one person at a time (`as`); everything it
 * does reaches the bot through the events sender, signed as Slack signs it.
 */
export function createSandboxWeb(options: SandboxWebOptions): SandboxWeb {
  const workspace = workspaceOf(options);
  const logger = options.logger ?? silentLogger();
  const { admins, modelInfo, auditFeed } = options;
  const actions = createPageActions({ workspace, sender: options.sender, logger });
  const assistant = createAssistantActions({ workspace, sender: options.sender, logger });
  const agent = createAgentActions({ workspace, sender: options.sender, logger });
  const assets = new Map<string, Asset>([...publicAssets(), ...vendorAssets()]);
  const streams = new Set<() => void>();
  const isAdmin = options.isAdmin ?? (async (userId: string) => admins.includes(userId));
  const runs = createRunsRoutes({ runQuery: options.runQuery, isAdmin, logger });
  const workObjects = options.workObjects
    ? createWorkObjectRoutes({ workspace, sender: options.workObjects, logger })
    : {};

  function asParam(url: URL): string {
    const parsed = asQuerySchema.safeParse({ as: url.searchParams.get("as") ?? "" });
    if (!parsed.success) throw new PageApiError(400, "invalid_input", "as: not a user id");
    return person(workspace, parsed.data.as).id;
  }

  async function serveAsset(res: ServerResponse, asset: Asset): Promise<void> {
    const body = await readFile(asset.path);
    res.writeHead(200, { ...PAGE_HEADERS, "content-type": asset.contentType });
    res.end(body);
  }

  async function get(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const path = url.pathname;
    if (path === "/") {
      const { html, csp } = pageHtml();
      res.writeHead(200, {
        ...PAGE_HEADERS,
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": csp,
      });
      res.end(html);
      return true;
    }
    const asset = assets.get(path);
    if (asset) {
      await serveAsset(res, asset);
      return true;
    }
    if (path === "/sandbox/api/people") {
      sendOk(res, { people: pagePeople({ workspace, admins }) });
    } else if (path === "/sandbox/api/state") {
      const me = asParam(url);
      const assistantThreads = assistantThreadsOf(workspace).listFor(me);
      const agentView = agentViewState(workspace, me);
      sendOk(res, {
        state: {
          ...pageState({ workspace: workspace, admins }, me, modelInfo),
          assistantThreads,
          ...agentView,
        },
      });
    } else if (path === "/sandbox/api/stream") {
      const me = asParam(url);
      const close = openEventStream({ req, res, workspace: workspace, me });
      streams.add(close);
      req.once("close", () => streams.delete(close));
    } else if (path === "/sandbox/api/audit") {
      await audit(res, asParam(url), url.searchParams.has("opened"));
    } else if (path.startsWith("/sandbox/api/runs")) {
      return runs.handle(res, url, () => asParam(url));
    } else if (path.startsWith("/sandbox/avatars/")) {
      const id = decodeURIComponent(path.slice("/sandbox/avatars/".length).replace(/\.svg$/, ""));
      const user = workspace.getUser(id);
      if (!user) throw new PageApiError(404, "user_not_found", "No such user.");
      res.setHeader("cache-control", "max-age=3600");
      sendText(res, 200, avatarSvg(user), "image/svg+xml");
    } else if (path.startsWith("/sandbox/files/")) {
      serveFile(res, url);
    } else if (path === "/sandbox/api/sample-files") {
      sendOk(res, {
        files: listSampleFiles().map((f) => ({ ...f, url: `/sandbox/sample-files/${f.name}` })),
      });
    } else if (path.startsWith("/sandbox/sample-files/")) {
      const name = decodeURIComponent(path.slice("/sandbox/sample-files/".length));
      const bytes = sampleFileBytes(name);
      if (!bytes) throw new PageApiError(404, "sample_not_found", "No such sample file.");
      sendFileBytes(
        res,
        { name, bytes, mimetype: fileTypeOf(name, bytes).mimetype },
        {
          download: true,
          cacheControl: "private, max-age=3600",
        },
      );
    } else {
      return false;
    }
    return true;
  }

  async function audit(res: ServerResponse, me: string, opened: boolean): Promise<void> {
    if (!admins.includes(me)) throw new PageApiError(403, "admins_only", "Only admins see the audit log.");
    if (!auditFeed) return sendOk(res, { available: false, rows: [], verify: null });
    try {
      const feed = await auditFeed({ reader: me, opened });
      sendOk(res, { available: true, rows: feed.rows, verify: feed.verify });
    } catch (err) {
      logger.warn({ err }, "sandbox page: the audit feed failed");
      throw new PageApiError(503, "audit_unavailable", "The audit log cannot be read right now.");
    }
  }

  /** An uploaded file, for someone who can see a channel it is shared in; never rendered as a page. */
  function serveFile(res: ServerResponse, url: URL): void {
    const me = asParam(url);
    const id = decodeURIComponent(url.pathname.split("/")[3] ?? "");
    const file = workspace.getFile(id);
    if (!file?.uploaded || !canDownload(workspace, file, me))
      throw new PageApiError(404, "file_not_found", "No such file.");
    sendFileBytes(res, file, {
      download: url.searchParams.has("download"),
      cacheControl: "private, max-age=3600",
    });
  }

  async function post(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const routes: Record<string, (body: unknown) => Promise<unknown>> = {
      "/sandbox/api/messages": actions.postMessage,
      "/sandbox/api/actions": actions.blockAction,
      "/sandbox/api/commands": actions.slashCommand,
      "/sandbox/api/home": actions.appHomeOpened,
      "/sandbox/api/assistant/threads": assistant.openThread,
      "/sandbox/api/assistant/context": assistant.changeContext,
      "/sandbox/api/agent/opened": agent.opened,
      "/sandbox/api/agent/messages": agent.message,
      "/sandbox/api/agent/stop": agent.stop,
      ...workObjects,
    };
    const route = routes[path];
    if (!route) return false;
    const limit = path === "/sandbox/api/messages" ? MAX_MESSAGE_BODY_BYTES : undefined;
    const answer = await route(await readJson(req, limit));
    sendOk(res, typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>) : {});
    return true;
  }

  return {
    async handle(req, res) {
      const url = new URL(req.url ?? "/", "http://sandbox.invalid");
      const path = url.pathname;
      if (path !== "/" && !path.startsWith("/sandbox/")) return false;
      try {
        const method = req.method ?? "GET";
        const handled =
          method === "GET" || method === "HEAD" ? await get(req, res, url) : await post(req, res, path);
        if (!handled && path.startsWith("/sandbox/api/"))
          throw new PageApiError(404, "not_found", "No such API route.");
        if (!handled && method !== "GET")
          throw new PageApiError(405, "method_not_allowed", "Method not allowed.");
        return handled;
      } catch (err) {
        const error =
          err instanceof PageApiError
            ? err
            : new PageApiError(500, "internal_error", "Something went wrong in the sandbox.");
        if (!(err instanceof PageApiError)) logger.error({ err, path }, "sandbox page request failed");
        if (!res.headersSent) sendError(res, error);
        else res.end();
        return true;
      }
    },
    close() {
      for (const close of streams) close();
      streams.clear();
    },
  };
}

function workspaceOf(options: SandboxWebOptions): Workspace {
  const workspace = options.workspace ?? options.emulator?.workspace;
  if (!workspace) throw new Error("createSandboxWeb needs a workspace (or an emulator).");
  return workspace;
}

/** The person's agent sessions and Messages-tab prompts (in their DM with the bot). */
function agentViewState(workspace: Workspace, me: string) {
  const sessions = agentSessionsOf(workspace);
  return {
    agentSessions: sessions.all().filter((s) => isDmOf(workspace, s.channel, me)),
    agentPrompts: sessions.allPrompts().find((p) => isDmOf(workspace, p.channel, me)) ?? null,
  };
}
