import { Worker } from "node:worker_threads";
import pLimit from "p-limit";
import type { FileLimits } from "./file-limits.ts";
import type { ParsedText, ParseReply, ParseRequest } from "./parse-messages.ts";

/** Why a parse gave no text. `timeout` and `memory` mean its worker was terminated. */
export type ParseOutcome =
  | { ok: true; parsed: ParsedText }
  | { ok: false; problem: "damaged" | "password" | "timeout" | "memory"; cause: string };

/** Parses at once across the process: each may hold `parseMemoryMb`, and the machine has few cores. */
const MAX_PARALLEL = 2;
/** A worker left idle this long is ended; the next document starts a new one (~100 ms). */
const IDLE_MS = 15_000;
/** A worker is replaced after this many documents, so no heap grows across many files. */
const RETIRE_AFTER = 32;

interface PooledWorker {
  worker: Worker;
  memoryMb: number;
  parses: number;
  idleTimer?: NodeJS.Timeout;
}

const running = pLimit(MAX_PARALLEL);
const idle: PooledWorker[] = [];
let nextId = 0;

/** A request without its id (each format's own fields kept apart). */
type RequestBody = ParseRequest extends infer R ? (R extends ParseRequest ? Omit<R, "id"> : never) : never;

/**
 * Parses one document on a worker thread with a heap limit and a deadline: a parse that overruns is
 * stopped by terminating its worker, and the event loop never waits on a parser. Workers are reused
 * while they behave (loading exceljs or pdf.js costs more than the parse of a small file), never keep
 * the process alive, and get no environment variables.
 */
export function parseOffThread(
  request: RequestBody,
  limits: Pick<FileLimits, "parseTimeoutMs" | "parseMemoryMb">,
): Promise<ParseOutcome> {
  return running(() => runOnce(request, limits));
}

function runOnce(request: RequestBody, limits: Pick<FileLimits, "parseTimeoutMs" | "parseMemoryMb">) {
  const pooled = takeIdle(limits.parseMemoryMb) ?? spawn(limits.parseMemoryMb);
  const id = nextId++;
  return new Promise<ParseOutcome>((resolve) => {
    const { worker } = pooled;
    const finish = (outcome: ParseOutcome, healthy: boolean) => {
      clearTimeout(deadline);
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      if (healthy) release(pooled);
      else void worker.terminate();
      resolve(outcome);
    };
    const onMessage = (reply: ParseReply) => {
      if (reply.id !== id) return;
      finish(reply.ok ? reply : { ok: false, problem: reply.problem, cause: reply.cause }, true);
    };
    const onError = (error: Error & { code?: string }) => {
      const memory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
      finish({ ok: false, problem: memory ? "memory" : "damaged", cause: error.message }, false);
    };
    const onExit = (code: number) =>
      finish({ ok: false, problem: "damaged", cause: `the parse worker exited with code ${code}` }, false);
    const deadline = setTimeout(
      () =>
        finish(
          { ok: false, problem: "timeout", cause: `the parse ran over ${limits.parseTimeoutMs} ms` },
          false,
        ),
      limits.parseTimeoutMs,
    );
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    // A copy with a buffer of its own (a Buffer's slice would share the caller's), moved to the worker.
    const bytes = new Uint8Array(request.bytes.byteLength);
    bytes.set(request.bytes);
    worker.postMessage({ ...request, bytes, id }, [bytes.buffer]);
  });
}

function spawn(memoryMb: number): PooledWorker {
  const worker = new Worker(new URL("./parse-worker.ts", import.meta.url), {
    env: {},
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
  });
  worker.unref();
  // Errors are taken by the parse that is running; an idle worker that fails is simply dropped.
  worker.on("error", () => drop(worker));
  worker.on("exit", () => drop(worker));
  return { worker, memoryMb, parses: 0 };
}

function takeIdle(memoryMb: number): PooledWorker | undefined {
  const index = idle.findIndex((pooled) => pooled.memoryMb === memoryMb);
  if (index < 0) return undefined;
  const [pooled] = idle.splice(index, 1);
  if (pooled?.idleTimer) clearTimeout(pooled.idleTimer);
  return pooled;
}

function release(pooled: PooledWorker): void {
  pooled.parses += 1;
  if (pooled.parses >= RETIRE_AFTER || idle.length >= MAX_PARALLEL) {
    void pooled.worker.terminate();
    return;
  }
  pooled.idleTimer = setTimeout(() => {
    drop(pooled.worker);
    void pooled.worker.terminate();
  }, IDLE_MS);
  pooled.idleTimer.unref();
  idle.push(pooled);
}

function drop(worker: Worker): void {
  const index = idle.findIndex((pooled) => pooled.worker === worker);
  if (index >= 0) idle.splice(index, 1);
}

/** Ends the idle workers now (a process shutting down, or a test cleaning up). */
export async function closeParseWorkers(): Promise<void> {
  const workers = idle.splice(0).map((pooled) => {
    if (pooled.idleTimer) clearTimeout(pooled.idleTimer);
    return pooled.worker.terminate();
  });
  await Promise.all(workers);
}
