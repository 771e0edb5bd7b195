import type { TokenBudget } from "../agent/budget/token-budget.ts";
import type { ChatModel } from "../agent/model/chat-model.ts";
import type { ModelSet } from "../agent/model/models-for-run.ts";
import { delegate } from "../agent/run/delegate.ts";
import type { PolicyGuard, ToolEventSink } from "../agent/run/policy-hook.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import type { RunIdentity } from "../core/run-identity.ts";
import type { McpServerConfig } from "../mcp/mcp-config.ts";
import type { McpToolSource } from "../mcp/mcp-tool-source.ts";
import { resolveLevel } from "../policy/levels.ts";
import { resolveAccess } from "../policy/resolve-access.ts";
import { profileRules, profileRunSettings } from "../profiles/channel-profile.ts";
import type { ChannelProfiles } from "../profiles/channel-profiles.ts";
import type { Database } from "../store/db.ts";
import type { UserStore } from "../store/user-store.ts";
import { loadToolModules } from "../tools/custom/load-tool-modules.ts";
import { namedSources } from "../tools/custom/tool-names.ts";
import { fetchResult } from "../tools/fetch-result.ts";
import { getCurrentTime } from "../tools/get-current-time.ts";
import { getViewedChannel } from "../tools/get-viewed-channel.ts";
import { loadHttpTools } from "../tools/http/load-http-tools.ts";
import { createMemoryTools } from "../tools/memory/memory-tools.ts";
import { ToolRegistry } from "../tools/registry.ts";
import { ticketReport } from "../tools/reports/ticket-report.ts";
import type { ResultStore } from "../tools/result-store.ts";
import { sendMessage, sendMessageGuard } from "../tools/send-message.ts";
import type { SlackPort } from "../tools/slack-port.ts";
import { createTicketTools } from "../tools/tickets/ticket-tools.ts";

export interface BuildToolsOptions {
  config: Config;
  logger: Logger;
  db: Database;
  users: UserStore;
  results: ResultStore;
  slack: SlackPort;
  model: ChatModel;
  /** The daily token budgets `delegate`'s sub-agent pays its model calls from (absent: not metered). */
  budget?: TokenBudget;
  /** What `model` is built from (`modelsForRun`), for `delegate` to meter inside command mode. */
  models?: ModelSet;
  /** Where `delegate`'s sub-agent reports its tool events (the audit log). */
  auditSink: ToolEventSink;
  /** The raw environment, only for `${VAR}` secrets in HTTP tool headers. */
  rawEnv: Record<string, string | undefined>;
  /** `HERMES_MCP_SERVERS`, already loaded (a bad file stops start-up before anything is built). */
  mcpServers?: readonly McpServerConfig[];
  /**
   * Channel profiles: `delegate`'s sub-agent gets the tools its run's channel allows, no more, and
   * the models and channel budget its profile sets.
   */
  profiles?: ChannelProfiles;
}

/** Where the registry keeps one MCP server's tools (`ToolRegistry.replaceSource`): one source each. */
export function mcpSource(server: string): string {
  return `mcp:${server}`;
}

/**
 * The registry: built-in tools, then `HERMES_TOOLS` modules and `HERMES_HTTP_TOOLS` (a name clash
 * stops start-up), then the MCP servers' tools, which never take a name already used and follow each
 * server's tool list as it changes. `mcp` must be closed on shutdown.
 */
export async function buildTools(
  o: BuildToolsOptions,
): Promise<{ registry: ToolRegistry; guards: Record<string, PolicyGuard>; mcp?: McpToolSource }> {
  const isAdmin = async (userId: string) =>
    resolveLevel({
      userId,
      admins: o.config.env.HERMES_ADMINS,
      stored: (await o.users.get(userId))?.level ?? null,
    }) === "admin";
  const registry = new ToolRegistry({ results: o.results, logger: o.logger });
  const guards: Record<string, PolicyGuard> = { send_message: sendMessageGuard(o.slack) };
  // The sub-agent gets the caller's permitted tools, policy and profile settings (models, channel
  // budget), resolved when it runs, from the registry as it is by then (complete: start-up registers
  // every tool before any run).
  const access = async (run: RunIdentity) => {
    const profile = (await o.profiles?.forChannel(run.channelId, run.teamId))?.profile ?? {};
    const sources = { users: o.users, config: o.config, registry, guards };
    return {
      ...(await resolveAccess(sources, run.userId, profileRules(profile))),
      onToolEvent: o.auditSink,
      settings: profileRunSettings(profile),
    };
  };
  registry.register(
    getCurrentTime(),
    getViewedChannel(o.slack),
    fetchResult(o.results),
    ...createTicketTools({ db: o.db, slack: o.slack, isAdmin }),
    ticketReport({ db: o.db, slack: o.slack }),
    ...createMemoryTools({ db: o.db }),
    sendMessage(o.slack),
    delegate({
      model: o.model,
      registry,
      logger: o.logger,
      access,
      ...(o.budget ? { budget: o.budget } : {}),
      ...(o.models ? { models: o.models } : {}),
    }),
  );
  const taken = namedSources(registry.list(), "built-in");
  const cwd = process.cwd();
  if (o.config.env.HERMES_TOOLS) {
    const custom = await loadToolModules(o.config.env.HERMES_TOOLS, { cwd, taken });
    registry.register(...custom);
    taken.push(...namedSources(custom, "HERMES_TOOLS"));
  }
  if (o.config.env.HERMES_HTTP_TOOLS) {
    registry.register(
      ...(await loadHttpTools(o.config.env.HERMES_HTTP_TOOLS, { env: o.rawEnv, cwd, taken })),
    );
  }
  if (!o.mcpServers?.length) return { registry, guards };
  // Loaded only with servers configured: the MCP SDK (and its Ajv, zod-to-json-schema) stays out otherwise.
  const { startMcpServers } = await import("../mcp/mcp-tool-source.ts");
  const mcp = await startMcpServers(o.mcpServers, o.logger, { reserved: registry.names(), slack: o.slack });
  // A server's new list is offered from the next turn on (each turn reads the registry afresh). A list
  // the registry refuses is logged and shown in health; it never stops start-up or other servers.
  mcp.follow((server, tools) => registry.replaceSource(mcpSource(server), tools));
  return { registry, guards, mcp };
}
