import { mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatModel } from "../agent/model/chat-model.ts";
import { buildTools } from "../boot/build-tools.ts";
import { openOfflineWorkspace } from "../boot/offline-workspace.ts";
import { seedDemoTickets } from "../boot/seed-demo-tickets.ts";
import type { Config } from "../config.ts";
import { type Logger, silentLogger } from "../core/logger.ts";
import { resolveAccess } from "../policy/resolve-access.ts";
import { DEMO } from "../sandbox/seed-demo-workspace.ts";
import { resolveAuditKey } from "../store/audit-key.ts";

/** The bot token between the tools and the in-process Slack; it opens nothing else. */
const BOT_TOKEN = "xoxb-agent-cli";

export interface AgentWorkspaceOptions {
  config: Config;
  /** The raw environment, only for `${VAR}` secrets in HTTP tool headers. */
  rawEnv: Record<string, string | undefined>;
  logger: Logger;
  model: ChatModel;
  /** Keep the store here (created if new); absent: a temporary folder, removed on close. */
  dataDir?: string;
  /** Scrubs configured secrets and PII from audit rows, as the bot's audit log does. */
  redact: (value: unknown) => unknown;
}

/**
 * What `npm run agent` runs a turn against: the bot's own tools (`buildTools`: tickets, reports,
 * memory, messages, `delegate`, then `HERMES_TOOLS` and `HERMES_HTTP_TOOLS`) on embedded PGlite with
 * the demo tickets, the Slack Web API emulator's demo workspace behind the real `SlackPort`, and the
 * audit log. Tools really run, yet never in a real workspace or the bot's Postgres: `DATABASE_URL`
 * and the Slack tokens are not used. Zhang Wei (`U0ADMIN`) is an admin here, as in the sandbox.
 */
export async function openAgentWorkspace(o: AgentWorkspaceOptions) {
  const kept = o.dataDir !== undefined;
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), "hermes-agent-")));
  if (kept) mkdirSync(dataDir, { recursive: true });
  // The workspace's own messages stay out of the trace, which holds the turn alone; failures throw.
  const quiet = silentLogger();
  const removeTemp = () => (kept ? Promise.resolve() : rm(dataDir, { recursive: true, force: true }));
  let workspace: Awaited<ReturnType<typeof openOfflineWorkspace>> | undefined;
  try {
    workspace = await openOfflineWorkspace({
      dataDir,
      logger: quiet,
      botToken: BOT_TOKEN,
      redact: o.redact,
      // A data dir a running `npm start` owns is refused with a sentence naming it.
      owner: { role: "cli", command: "npm run agent" },
      auditKey: resolveAuditKey({ configured: undefined, databaseUrl: undefined, dataDir, logger: quiet }),
    });
    const { db, users, results, auditSink, slack } = workspace;
    await seedDemoTickets(db);
    const admins = [...new Set([...o.config.env.HERMES_ADMINS, DEMO.admin])];
    const config: Config = {
      ...o.config,
      env: { ...o.config.env, HERMES_ADMINS: admins, HERMES_DATA_DIR: dataDir },
    };
    const built = await buildTools({
      config,
      logger: o.logger,
      db,
      users,
      results,
      slack,
      model: o.model,
      auditSink,
      rawEnv: o.rawEnv,
    });
    const opened = workspace;
    return {
      dataDir,
      kept,
      db,
      users,
      registry: built.registry,
      auditSink,
      /** `userId`'s level, permitted tools and policy, as the bot resolves them. */
      access: (userId: string) =>
        resolveAccess({ users, config, registry: built.registry, guards: built.guards }, userId),
      async close() {
        try {
          await opened.close();
        } finally {
          await removeTemp();
        }
      },
    };
  } catch (err) {
    await workspace?.close().catch(() => undefined);
    await removeTemp();
    throw err;
  }
}

export type AgentWorkspace = Awaited<ReturnType<typeof openAgentWorkspace>>;
