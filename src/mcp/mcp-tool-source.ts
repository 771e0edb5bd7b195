import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Tool } from "../tools/define-tool.ts";
import type { SlackPort } from "../tools/slack-port.ts";
import type { McpServerConfig } from "./mcp-config.ts";
import { type Backoff, McpConnection, type McpServerHealth } from "./mcp-connection.ts";
import { type BuiltMcpTools, buildMcpTools, type McpToolInfo } from "./mcp-tools.ts";

export interface McpServerStatus extends McpServerHealth {
  /** Listed tools that are not offered, and why. */
  skipped: BuiltMcpTools["skipped"];
  /** Why the server's last tool list was not taken (see `follow`); its previous list stays offered. */
  rejected?: string;
}

export interface McpToolSource {
  /** Every offered tool of every server, as registry tools (the last list of a server that is down). */
  tools(): Tool[];
  /** Per tool: server, names, level and approval rule (for `/hermes tools`). */
  info(): McpToolInfo[];
  /** Called with a server's new tool list whenever it changes (connect, list_changed, reconnect). */
  onChange(listener: (server: string, tools: Tool[]) => void): () => void;
  /**
   * `apply` gets each server's list now and each new one as it comes. A list it throws on is logged
   * and shown in that server's health (`rejected`): one server's bad list never stops start-up or
   * the other servers' updates.
   */
  follow(apply: (server: string, tools: Tool[]) => void): () => void;
  /** Per server: state, number of listed tools, last error, tools not offered (/healthz shows state and count only). */
  health(): Record<string, McpServerStatus>;
  close(): Promise<void>;
}

export interface StartMcpOptions {
  /** Names other sources use; an MCP tool never takes one. */
  reserved?: Iterable<string>;
  /** Images in results go into the run's thread through it. */
  slack?: SlackPort;
  backoff?: Backoff;
}

/**
 * Connects to every configured server (in parallel, each bounded by its connect timeout) and returns
 * their tools as one source. A server that cannot be reached does not stop start-up: it is `down`,
 * retried with backoff, and its tools appear when it connects.
 */
export async function startMcpServers(
  config: readonly McpServerConfig[],
  logger: Logger,
  options: StartMcpOptions = {},
): Promise<McpToolSource> {
  const reserved = new Set(options.reserved ?? []);
  const connections = config.map(
    (server) =>
      new McpConnection({ config: server, logger, ...(options.backoff ? { backoff: options.backoff } : {}) }),
  );
  const built = new Map<string, BuiltMcpTools>();
  const rejected = new Map<string, string>();
  const listeners = new Set<(server: string, tools: Tool[]) => void>();
  const all = () => [...built.values()].flatMap((b) => b.tools);
  const tell = (listener: (server: string, tools: Tool[]) => void, server: string, tools: Tool[]) => {
    try {
      listener(server, tools);
    } catch (err) {
      logger.error({ mcpServer: server, err: errorMessage(err) }, "MCP tool list not taken");
      rejected.set(server, errorMessage(err));
    }
  };

  const rebuild = (connection: McpConnection) => {
    const result = buildMcpTools(connection, {
      reserved,
      ...(options.slack ? { slack: options.slack } : {}),
    });
    for (const { tool, why } of result.skipped) {
      logger.warn({ mcpServer: connection.name, tool, why }, "MCP tool not offered");
    }
    for (const key of result.unusedOverrides) {
      logger.warn({ mcpServer: connection.name, tool: key }, "MCP tool override matches no listed tool");
    }
    built.set(connection.name, result);
    rejected.delete(connection.name);
    for (const listener of listeners) tell(listener, connection.name, result.tools);
  };
  for (const connection of connections) connection.onToolsChanged(() => rebuild(connection));
  await Promise.all(connections.map((c) => c.start()));

  return {
    tools: all,
    info: () => [...built.values()].flatMap((b) => b.info),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    follow(apply) {
      for (const c of connections) tell(apply, c.name, built.get(c.name)?.tools ?? []);
      listeners.add(apply);
      return () => listeners.delete(apply);
    },
    health() {
      return Object.fromEntries(
        connections.map((c) => {
          const why = rejected.get(c.name);
          const status: McpServerStatus = { ...c.health(), skipped: built.get(c.name)?.skipped ?? [] };
          return [c.name, why === undefined ? status : { ...status, rejected: why }];
        }),
      );
    },
    async close() {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}
