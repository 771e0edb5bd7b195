import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool as McpTool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { errorMessage, HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { scrubSecrets } from "../tools/http/header-secrets.ts";
import { type ListedTools, listAllTools } from "./list-tools.ts";
import type { McpServerConfig } from "./mcp-config.ts";
import { CappedCallToolResultSchema, MAX_MESSAGE_BYTES, MessageTooLarge } from "./result-limits.ts";
import { sizeLimitedFetch } from "./size-limited-fetch.ts";
import { LineStdioTransport } from "./stdio-transport.ts";

export type McpState = "connecting" | "ready" | "down" | "closed";

export interface McpServerHealth {
  state: McpState;
  /** Tools the server listed last (kept while it is down, so their calls answer "unavailable"). */
  tools: number;
  /** Why the last tool list is shorter than the server's (a listing bound was reached). */
  listCutShort?: string;
  /** Why it is down, or the last failure. */
  error?: string;
  /** When the state last changed (ISO). */
  since: string;
  /** The server process, for a stdio server that is running. */
  pid?: number;
}

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 60_000 };
/** A server that stayed up this long starts again from the first backoff step after a crash. */
const STABLE_MS = 60_000;
/**
 * The SDK would compile each tool's `outputSchema` (Ajv) when listing and check `structuredContent`
 * against it on the main thread: the server writes both, so the check proves nothing, and a hostile
 * schema (a catastrophic `pattern`, a huge one) could hold the event loop. Its output is data to us
 * either way: serialized, capped and fenced like any tool result.
 */
const SERVER_OUTPUT_AS_DATA: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/** Least time between two tool listings caused by `list_changed` notifications. */
const REFRESH_GAP_MS = 500;
const STDERR_LINE_CHARS = 300;

/**
 * One MCP server through the official SDK client: connects (stdio or Streamable HTTP), lists its tools
 * at connect and on `notifications/tools/list_changed`, and restarts it with exponential backoff when
 * it cannot be reached or goes away. A call while it is not ready fails at once with "unavailable";
 * one while it is (re)connecting waits for that attempt, within the call's own signal.
 */
export class McpConnection {
  readonly config: McpServerConfig;
  private readonly logger: Logger;
  private readonly backoff: Backoff;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private listed: McpTool[] = [];
  private current: McpState = "down";
  private error: string | undefined;
  private since = new Date();
  /** Bumped whenever a client is given up, so callbacks of an old client change nothing. */
  private generation = 0;
  private failures = 0;
  private readySince: number | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The `list_changed` refresh running, and whether another notification came meanwhile. */
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private lastStderr = "";
  /** The connection (generation) whose server sent a message over MAX_MESSAGE_BYTES. */
  private oversized = -1;
  private listCutShort: string | undefined;
  private readonly stateWaiters = new Set<() => void>();
  private readonly toolListeners = new Set<() => void>();

  constructor(options: { config: McpServerConfig; logger: Logger; backoff?: Backoff }) {
    this.config = options.config;
    this.logger = options.logger.child({ mcpServer: options.config.name });
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
  }

  get name(): string {
    return this.config.name;
  }

  get state(): McpState {
    return this.current;
  }

  /** The tools as the server listed them (all of them: filtering is mcp-tools' job). */
  get tools(): readonly McpTool[] {
    return this.listed;
  }

  /** Called after every change of the tool list (first connect, list_changed, reconnect). */
  onToolsChanged(listener: () => void): () => void {
    this.toolListeners.add(listener);
    return () => this.toolListeners.delete(listener);
  }

  /** The first connection attempt; resolves when it has settled (ready or down, never throws). */
  async start(): Promise<void> {
    await this.connect();
  }

  health(): McpServerHealth {
    const pid = this.transport instanceof LineStdioTransport ? this.transport.pid : null;
    return {
      state: this.current,
      tools: this.listed.length,
      ...(this.listCutShort ? { listCutShort: this.listCutShort } : {}),
      ...(this.error ? { error: this.error } : {}),
      since: this.since.toISOString(),
      ...(pid && this.current === "ready" ? { pid } : {}),
    };
  }

  /**
   * One `tools/call`. The signal (the turn's cancellation and the registry's timeout) cancels the
   * request on the server too (`notifications/cancelled`); `timeoutMs` bounds it on its own.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    if (this.current === "connecting") await this.settled(options.signal);
    options.signal.throwIfAborted();
    const client = this.client;
    if (this.current !== "ready" || !client) throw this.unavailable();
    const generation = this.generation;
    try {
      // The result's blocks are capped before the SDK's schema reads them (result-limits.ts).
      return (await client.callTool({ name, arguments: args }, CappedCallToolResultSchema, {
        signal: options.signal,
        timeout: options.timeoutMs,
      })) as CallToolResult;
    } catch (err) {
      if (options.signal.aborted) throw options.signal.reason ?? err;
      const where = `MCP server "${this.name}"`;
      if (err instanceof McpError) {
        if (err.code === ErrorCode.ConnectionClosed && this.oversized === generation) {
          this.lost(generation, "it sent a message over the size limit");
          throw this.oversize();
        }
        if (err.code === ErrorCode.ConnectionClosed) {
          this.lost(generation, "the connection closed during a call");
          throw new HermesError(
            "tool_failed",
            `${where} went away during the call and is being restarted; the call may or may not have taken effect.`,
          );
        }
        if (err.code === ErrorCode.RequestTimeout) {
          throw new HermesError("tool_timeout", `${where} did not answer within ${options.timeoutMs} ms.`);
        }
        // A JSON-RPC error from the server itself (unknown tool, invalid params): the connection is fine.
        throw new HermesError("tool_failed", this.scrub(`${where}: ${err.message}`));
      }
      if (isSchemaError(err)) {
        // An answer, but not a valid result: the server is there, and the call may have run.
        throw new HermesError(
          "tool_failed",
          this.scrub(
            `${where} answered with an invalid result (${oneLineIssues(err)}); the call may have taken effect.`,
          ),
        );
      }
      if (this.oversized === generation) {
        this.lost(generation, "it sent a message over the size limit");
        throw this.oversize();
      }
      // Not an answer from the server: the transport failed (process gone, HTTP unreachable, session lost).
      this.lost(generation, errorMessage(err));
      throw new HermesError("tool_failed", this.scrub(`${where} is unreachable: ${errorMessage(err)}`));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.generation++;
    const client = this.client;
    this.client = undefined;
    this.setState("closed");
    await client?.close().catch(() => {});
    this.transport = undefined;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const generation = ++this.generation;
    this.setState("connecting");
    const client = new Client(
      { name: "hermes", version: "1.0.0" },
      { capabilities: {}, jsonSchemaValidator: SERVER_OUTPUT_AS_DATA },
    );
    const transport = this.makeTransport();
    client.onclose = () => this.lost(generation, this.closeReason());
    client.onerror = (err) => {
      // A message over the limit: the connection is dropped (the stdio transport closes itself; an
      // HTTP one keeps waiting for the answer it will not read), and the call in flight says why.
      if (err instanceof MessageTooLarge || errorMessage(err).includes(MessageTooLarge.text)) {
        this.oversized = generation;
        if (!(transport instanceof LineStdioTransport)) void client.close().catch(() => {});
      }
      this.logger.debug({ err: errorMessage(err) }, "MCP transport error");
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.toolsChanged(generation, client);
    });
    const timeout = this.config.timeouts.connectMs;
    try {
      await client.connect(transport, { timeout });
      const listing = await listAllTools(client, timeout);
      if (generation !== this.generation) {
        await client.close().catch(() => {});
        return;
      }
      this.client = client;
      this.transport = transport;
      this.took(listing);
      this.readySince = Date.now();
      this.setState("ready");
      this.logger.info({ tools: listing.tools.length }, "MCP server ready");
      this.emitToolsChanged();
    } catch (err) {
      this.lost(generation, errorMessage(err));
      await client.close().catch(() => {});
    }
  }

  /** The connection of `generation` is gone: mark the server down and try again after the backoff. */
  private lost(generation: number, reason: string): void {
    if (generation !== this.generation || this.closed) return;
    this.generation++;
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => {});
    if (this.readySince !== undefined && Date.now() - this.readySince >= STABLE_MS) this.failures = 0;
    this.readySince = undefined;
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.failures);
    this.failures++;
    this.setState("down", this.scrub(reason));
    this.logger.warn({ err: this.error, retryInMs: delay }, "MCP server down");
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }

  /**
   * A `list_changed`: one refresh at a time, so lists are taken in the order they were read, and a
   * burst of notifications costs one more listing after the one running (at most one per
   * REFRESH_GAP_MS), not one each: a server cannot pin the CPU by sending them.
   */
  private toolsChanged(generation: number, client: Client): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.refreshTools(generation, client);
        if (this.refreshAgain) await sleep(REFRESH_GAP_MS);
      } while (this.refreshAgain && generation === this.generation && !this.closed);
    })().finally(() => {
      this.refreshing = undefined;
    });
  }

  private async refreshTools(generation: number, client: Client): Promise<void> {
    try {
      const listing = await listAllTools(client, this.config.timeouts.connectMs);
      if (generation !== this.generation) return;
      this.took(listing);
      this.logger.info({ tools: listing.tools.length }, "MCP tool list changed");
      this.emitToolsChanged();
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, "MCP tool list refresh failed; keeping the old list");
    }
  }

  private took(listing: ListedTools): void {
    this.listed = listing.tools;
    this.listCutShort = listing.cutShort;
    if (listing.cutShort) this.logger.warn({ why: listing.cutShort }, "MCP tool list cut short");
  }

  private makeTransport(): Transport {
    const c = this.config;
    if (c.transport === "http") {
      return new StreamableHTTPClientTransport(new URL(c.url), {
        requestInit: { headers: c.headers },
        fetch: sizeLimitedFetch(MAX_MESSAGE_BYTES),
        // Headers carry secrets: they must not follow a redirect to another origin.
        redirectPolicy: "same-origin",
      });
    }
    const transport = new LineStdioTransport({
      command: c.command,
      args: c.args,
      env: c.env,
      ...(c.cwd ? { cwd: c.cwd } : {}),
      maxMessageBytes: MAX_MESSAGE_BYTES,
    });
    transport.stderr.on("data", (chunk: Buffer) => {
      const lines = chunk
        .toString("utf8")
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean);
      const last = lines.at(-1);
      if (last) this.lastStderr = last.slice(0, STDERR_LINE_CHARS);
      for (const line of lines) this.logger.debug({ stderr: this.scrub(line) }, "MCP server stderr");
    });
    return transport;
  }

  private closeReason(): string {
    return this.lastStderr
      ? `the connection closed (last stderr: ${this.lastStderr})`
      : "the connection closed";
  }

  private oversize(): HermesError {
    return new HermesError(
      "tool_failed",
      `MCP server "${this.name}" answered with more than ${MAX_MESSAGE_BYTES / 1024 / 1024} MB in one message, more than Hermes reads; the server is being restarted, and the call may have taken effect.`,
    );
  }

  private unavailable(): HermesError {
    const why = this.error ? ` (${this.error})` : "";
    return new HermesError(
      "tool_failed",
      `MCP server "${this.name}" is unavailable right now${why}; nothing was done. Try again later.`,
    );
  }

  /** Resolves when the state is no longer `connecting`, or rejects when the signal aborts first. */
  private settled(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        if (this.current === "connecting") return;
        cleanup();
        resolve();
      };
      const onAbort = () => {
        cleanup();
        reject(signal.reason);
      };
      const cleanup = () => {
        this.stateWaiters.delete(done);
        signal.removeEventListener("abort", onAbort);
      };
      this.stateWaiters.add(done);
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted) onAbort();
      else done();
    });
  }

  private setState(state: McpState, error?: string): void {
    this.current = state;
    if (error !== undefined) this.error = error;
    else if (state === "ready") this.error = undefined;
    this.since = new Date();
    for (const waiter of [...this.stateWaiters]) waiter();
  }

  private emitToolsChanged(): void {
    for (const listener of this.toolListeners) {
      try {
        listener();
      } catch (err) {
        this.logger.error({ err: errorMessage(err) }, "MCP tool list listener failed");
      }
    }
  }

  private scrub(text: string): string {
    return scrubSecrets(text, this.config.secrets);
  }
}

/**
 * The SDK rejects a response that fails the protocol's result schema with zod's error (not an
 * McpError): recognised by its shape, as the SDK may use zod's mini or classic build.
 */
function isSchemaError(
  err: unknown,
): err is Error & { issues: Array<{ path?: unknown[]; message?: string }> } {
  return err instanceof Error && Array.isArray((err as { issues?: unknown }).issues);
}

const ISSUES_CHARS = 300;

function oneLineIssues(err: { issues: Array<{ path?: unknown[]; message?: string }> }): string {
  const text = err.issues
    .map((i) => `${i.path?.length ? i.path.map(String).join(".") : "(result)"}: ${i.message ?? "invalid"}`)
    .join("; ");
  return text.length > ISSUES_CHARS ? `${text.slice(0, ISSUES_CHARS - 1)}…` : text;
}
