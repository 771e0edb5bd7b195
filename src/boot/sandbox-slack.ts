import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../core/logger.ts";
import { createEventsSender } from "../sandbox/events-sender.ts";
import { feedLinkShared } from "../sandbox/link-shared-feed.ts";
import { refuseForeign } from "../sandbox/loopback-guard.ts";
import { loadPersistedWorkspace, sandboxDirOf } from "../sandbox/persisted-workspace.ts";
import { seedDemoWorkspace } from "../sandbox/seed-demo-workspace.ts";
import { SlackApiEmulator } from "../sandbox/slack-api-server.ts";
import { type AuditFeed, createSandboxWeb, type SandboxWeb } from "../sandbox/web/sandbox-web.ts";
import { createWorkObjectSender } from "../sandbox/work-object-events.ts";
import type { RunQuery } from "../store/run-query.ts";

const EMULATOR_PATHS = ["/api/", "/response/", "/upload/", "/files/", "/avatars/"];

/**
 * Sandbox mode: a different Slack, not a different code path. The Web API emulator is served by the
 * same process under `/api/` (the bot's client points there), events reach the same Bolt receiver
 * signed exactly as Slack signs them, and the page at `/` is a Slack-like client for the seeded demo
 * workspace. Only the token and signing secret are made up here.
 *
 * The workspace is kept in `$HERMES_DATA_DIR/sandbox` (`dataDir`), so a restart shows the same
 * conversations; without `dataDir` it lives in memory only. It is read here and written from
 * `attachPage` on, once storage owns the data dir.
 */
export async function prepareSandboxSlack(options: {
  port: number;
  admins: readonly string[];
  logger: Logger;
  /** Where Hermes keeps its data; the workspace goes in its `sandbox` folder. Omitted: in memory. */
  dataDir?: string;
}) {
  const port = options.port || (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const botToken = `xoxb-sandbox-${randomBytes(12).toString("hex")}`;
  const signingSecret = randomBytes(24).toString("hex");
  const persisted = options.dataDir
    ? loadPersistedWorkspace({ ...sandboxDirOf(options.dataDir), logger: options.logger })
    : undefined;
  const workspace = persisted?.workspace ?? seedDemoWorkspace();
  const emulator = new SlackApiEmulator({
    workspace,
    tokens: [botToken],
    publicOrigin: origin,
    logger: options.logger,
  });
  let web: SandboxWeb | undefined;
  let sender: ReturnType<typeof createEventsSender> | undefined;
  let stopLinkFeed: (() => void) | undefined;

  // Every path after `/healthz` (the page, its API, the emulator, the bot's own `/slack/events`)
  // answers only requests addressed to this loopback server: no DNS rebinding, no cross-site posts.
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (refuseForeign(req, res, port)) return true;
    const path = req.url ?? "/";
    if (EMULATOR_PATHS.some((p) => path.startsWith(p))) return emulator.handle(req, res);
    return web ? web.handle(req, res) : false;
  };

  return {
    port,
    origin,
    botToken,
    signingSecret,
    slackApiUrl: `${origin}/api/`,
    workspace,
    emulator,
    bot: { userId: workspace.bot.userId, botId: workspace.bot.botId, teamId: workspace.team.id },
    route,
    /** Once the receiver listens: the events sender and the page; the workspace is written from now on. */
    attachPage(page: {
      modelInfo: string;
      auditFeed?: (read: { reader: string; opened: boolean }) => Promise<AuditFeed>;
      runQuery?: RunQuery;
      isAdmin?: (userId: string) => Promise<boolean>;
      /** The manifest's `unfurl_domains`: a person's links there reach the bot as `link_shared`. */
      unfurlDomains?: readonly string[];
    }) {
      persisted?.start();
      sender = createEventsSender({ url: `${origin}/slack/events`, signingSecret, slack: emulator });
      const workObjects = createWorkObjectSender({
        url: `${origin}/slack/events`,
        signingSecret,
        slack: emulator,
      });
      stopLinkFeed = feedLinkShared({
        workspace,
        sender: workObjects,
        domains: page.unfurlDomains ?? [],
        logger: options.logger,
      });
      web = createSandboxWeb({
        emulator,
        sender,
        workObjects,
        admins: options.admins,
        modelInfo: page.modelInfo,
        auditFeed: page.auditFeed,
        runQuery: page.runQuery,
        ...(page.isAdmin ? { isAdmin: page.isAdmin } : {}),
        logger: options.logger,
      });
      return sender;
    },
    /** Delivers signed events as the page does (tests drive the sandbox through it). */
    get sender() {
      if (!sender) throw new Error("the sandbox page is not attached yet");
      return sender;
    },
    close() {
      stopLinkFeed?.();
      web?.close();
      persisted?.close();
    },
  };
}

export type SandboxSlack = Awaited<ReturnType<typeof prepareSandboxSlack>>;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
