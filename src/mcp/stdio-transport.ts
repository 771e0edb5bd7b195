import { type ChildProcess, spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { OFF_THREAD_BYTES, parseOffThread } from "./off-thread-parse.ts";
import { MessageTooLarge, markCappedOnParse } from "./result-limits.ts";

export interface StdioServer {
  command: string;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  /** The most bytes one message (one line) may have: past it the connection is dropped. */
  maxMessageBytes: number;
}

/**
 * The MCP stdio client transport: the server process's stdin and stdout carry one JSON-RPC message a
 * line, as the SDK's `StdioClientTransport` (same environment, spawn options and closing steps), but a
 * line being read is kept as a list of the chunks received and joined once when it ends. The SDK's
 * reader copies everything received so far for every chunk (`Buffer.concat`), which for a message of
 * several megabytes holds the event loop for hundreds of milliseconds; here reading costs the message's
 * size once. A line over `maxMessageBytes` is never joined: the transport reports it and closes. A
 * line of OFF_THREAD_BYTES or more is joined and parsed on a worker thread (off-thread-parse.ts), and
 * the messages after it wait for it, so they are still handed on in the order they were written.
 */
export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private process: ChildProcess | undefined;
  private readonly stderrStream = new PassThrough();
  private readonly server: StdioServer;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Messages handed on in order once any is parsed off the main thread: the tail of that queue. */
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(server: StdioServer) {
    this.server = server;
  }

  /** The server's stderr (piped), readable before `start`. */
  get stderr(): PassThrough {
    return this.stderrStream;
  }

  get pid(): number | null {
    return this.process?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.process) throw new Error("the transport is already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, this.server.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.server.env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        ...(this.server.cwd ? { cwd: this.server.cwd } : {}),
      });
      this.process = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        this.process = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stderr?.pipe(this.stderrStream);
    });
  }

  /** Takes a chunk of stdout: each line ended in it is one message. */
  private read(chunk: Buffer): void {
    // Closing (a message was too large): what the process still writes is not read.
    if (!this.process) return;
    let from = 0;
    for (;;) {
      const end = chunk.indexOf(10, from);
      const piece = end < 0 ? chunk.subarray(from) : chunk.subarray(from, end);
      if (this.size + piece.length > this.server.maxMessageBytes) {
        this.chunks = [];
        this.size = 0;
        this.onerror?.(new MessageTooLarge(this.server.maxMessageBytes));
        void this.close();
        return;
      }
      if (piece.length > 0) {
        this.chunks.push(piece);
        this.size += piece.length;
      }
      if (end < 0) return;
      const chunks = this.chunks;
      const size = this.size;
      this.chunks = [];
      this.size = 0;
      from = end + 1;
      if (size >= OFF_THREAD_BYTES) {
        this.handOnInOrder(parseOffThread(chunks).then(checkedMessage));
        continue;
      }
      const line = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
        .toString("utf8")
        .replace(/\r$/, "");
      if (line.trim() === "") continue;
      if (this.queued > 0) {
        this.handOnInOrder(Promise.resolve(line).then(deserializeMessage));
        continue;
      }
      try {
        this.onmessage?.(deserializeMessage(line));
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  /** Hands a message on after every message read before it (each is parsed as soon as it is read). */
  private handOnInOrder(parsing: Promise<JSONRPCMessage>): void {
    this.queued++;
    const settled = parsing.then(
      (message) => ({ message }),
      (error: unknown) => ({ error: error instanceof Error ? error : new Error(String(error)) }),
    );
    this.queue = this.queue.then(async () => {
      const parsed = await settled;
      this.queued--;
      // Closing (a message was too large, or the connection ended): what was still being parsed is dropped.
      if (!this.process) return;
      if ("error" in parsed) this.onerror?.(parsed.error);
      else this.onmessage?.(parsed.message);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.process?.stdin;
      if (!stdin) {
        reject(new Error("Not connected"));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Ends stdin, then SIGTERM after 2 s, then SIGKILL after 2 s more (the SDK's steps). */
  async close(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    this.chunks = [];
    this.size = 0;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const wait = () =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, 2000).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await wait();
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
      if (signal === "SIGTERM") await wait();
    }
  }
}

/** A message parsed off the main thread, checked as the SDK checks one (`deserializeMessage`). */
function checkedMessage(parsed: { message: unknown; omitted: number }): JSONRPCMessage {
  const message = JSONRPCMessageSchema.parse(parsed.message);
  if ("result" in message && typeof message.result === "object" && message.result !== null) {
    markCappedOnParse(message.result, parsed.omitted);
  }
  return message;
}
