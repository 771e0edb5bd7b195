import { Worker } from "node:worker_threads";
import type { ParseReply } from "./message-parse-worker.ts";

/**
 * A message at least this large is parsed on a worker thread: one `JSON.parse` of a few megabytes of
 * small objects holds the event loop for ~50–120 ms on a busy two-core machine, and everything else
 * the process serves (acks, /healthz, other turns) waits behind it.
 */
export const OFF_THREAD_BYTES = 1024 * 1024;

export interface ParsedMessage {
  message: unknown;
  /** Content blocks of a result left out on the worker (beyond MAX_RESULT_BLOCKS). */
  omitted: number;
}

/** One worker for the process, started on first use; it never keeps the process alive. */
let worker: Worker | undefined;
const waiting = new Map<number, { resolve: (p: ParsedMessage) => void; reject: (e: Error) => void }>();
let nextId = 0;

function parser(): Worker {
  if (worker) return worker;
  const started = new Worker(new URL("./message-parse-worker.ts", import.meta.url));
  started.unref();
  started.on("message", (reply: ParseReply) => {
    const entry = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (!entry) return;
    if (reply.ok) entry.resolve({ message: reply.message, omitted: reply.omitted });
    else entry.reject(new SyntaxError(reply.error));
  });
  // A worker that dies fails what it was parsing; the next message starts a new one.
  const fail = (error: Error) => {
    if (worker === started) worker = undefined;
    for (const entry of waiting.values()) entry.reject(error);
    waiting.clear();
  };
  started.on("error", fail);
  started.on("exit", (code) => fail(new Error(`the message parser stopped (exit code ${code})`)));
  worker = started;
  return started;
}

/** Parses one message's bytes (its chunks, in order) on the worker thread. */
export function parseOffThread(chunks: readonly Uint8Array[]): Promise<ParsedMessage> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    parser().postMessage({ id, chunks });
  });
}
