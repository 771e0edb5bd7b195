import { z } from "zod";
import { type ChatMessage, chatMessageSchema } from "../agent/context/messages.ts";
import { HermesError } from "../core/errors.ts";

export interface LoadedSession {
  messages: ChatMessage[];
  /**
   * `false` when there is no usable history (new thread, expired, lost with Redis, or unreadable):
   * start empty, never fail.
   */
  found: boolean;
  /** Why a stored history was not used: it is not a JSON array of chat messages (then it is ignored). */
  unreadable?: string;
}

export interface WithLockOptions {
  /** How long the lock outlives its holder without renewal (a crashed worker frees it after this). */
  leaseMs?: number;
  /** How long a turn waits for the turns queued before it in the same thread before giving up. */
  waitMs?: number;
}

/**
 * Thread history with a sliding TTL, plus one turn per thread at a time. Implemented on Redis
 * (shared by every replica) and in process memory (the embedded, single-process default).
 */
export interface SessionStore {
  /** Reads the history and renews its TTL. */
  load(sessionKey: string): Promise<LoadedSession>;
  /** Replaces the history and renews its TTL. */
  save(sessionKey: string, messages: readonly ChatMessage[]): Promise<void>;
  delete(sessionKey: string): Promise<void>;
  /**
   * Runs `fn` while holding the thread's lock. Later callers queue (first come, first served) for at
   * most `waitMs`, then get a `HermesError`. The lease is renewed while `fn` runs and released after,
   * also when `fn` throws. If the lock is lost anyway, `signal` aborts: stop before writing anything.
   */
  withLock<T>(
    sessionKey: string,
    fn: (signal: AbortSignal) => Promise<T> | T,
    options?: WithLockOptions,
  ): Promise<T>;
  /** Rejects queued turns, aborts the signals of running ones, and closes connections it opened. */
  close(): Promise<void>;
}

export const DEFAULT_SESSION_TTL_SECONDS = 7 * 24 * 3600;
export const DEFAULT_LOCK_LEASE_MS = 30_000;
export const DEFAULT_LOCK_WAIT_MS = 10 * 60_000;

const storedMessages = z.array(chatMessageSchema);

/**
 * Reads stored history back. History that is not JSON, or not chat messages (written by an older
 * version, or damaged), is never handed to the runtime: it loads as no history, with the reason.
 */
export function parseStoredMessages(json: string): LoadedSession {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { messages: [], found: false, unreadable: "not JSON" };
  }
  const parsed = storedMessages.safeParse(value);
  if (parsed.success) return { messages: parsed.data, found: true };
  return { messages: [], found: false, unreadable: z.prettifyError(parsed.error).slice(0, 500) };
}

/** The TTL in whole milliseconds; fractions of a second are allowed (tests use short TTLs). */
export function sessionTtlMs(ttlSeconds: number | undefined): number {
  const seconds = ttlSeconds ?? DEFAULT_SESSION_TTL_SECONDS;
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new HermesError(
      "config_invalid",
      `The session TTL must be a positive number of seconds, not ${seconds}.`,
    );
  }
  return Math.max(1, Math.round(seconds * 1000));
}

export function resolveLockOptions(options: WithLockOptions): { leaseMs: number; waitMs: number } {
  const leaseMs = options.leaseMs ?? DEFAULT_LOCK_LEASE_MS;
  const waitMs = options.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  if (!Number.isFinite(leaseMs) || leaseMs < 30) {
    throw new HermesError("bad_request", `A session lock lease must be at least 30 ms, not ${leaseMs}.`);
  }
  if (!Number.isFinite(waitMs) || waitMs < 0) {
    throw new HermesError("bad_request", `A session lock wait must be zero or more ms, not ${waitMs}.`);
  }
  return { leaseMs: Math.round(leaseMs), waitMs: Math.round(waitMs) };
}

export function lockWaitTimeoutError(sessionKey: string, waitMs: number): HermesError {
  return new HermesError(
    "storage_unavailable",
    `An earlier request in this thread is still running; I waited ${formatDuration(waitMs)} for it and gave up. ` +
      `Please try again once it has answered. (session ${sessionKey})`,
  );
}

export function lockLostError(sessionKey: string): HermesError {
  return new HermesError(
    "storage_unavailable",
    `I lost the lock on this thread (session ${sessionKey}), so I stopped to avoid two answers running at once.`,
  );
}

export function storeClosedError(): HermesError {
  return new HermesError("storage_unavailable", "Hermes is shutting down; please try again in a moment.");
}

function formatDuration(ms: number): string {
  if (ms >= 60_000) return `${Math.round(ms / 60_000)} min`;
  if (ms >= 1000) return `${Math.round(ms / 1000)} s`;
  return `${ms} ms`;
}
