import { setTimeout as sleep } from "node:timers/promises";
import { createLogger, type Logger } from "../../src/core/logger.ts";
import { type BullmqTurnQueueOptions, createBullmqTurnQueue } from "../../src/queue/bullmq-turn-queue.ts";
import type { TurnJob } from "../../src/queue/jobs.ts";
import type { TurnQueue } from "../../src/queue/turn-queue.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl, uniqueRedisPrefix } from "./redis.ts";

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A debug-level logger whose JSON lines are kept in memory for assertions. */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger({
    level: "debug",
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  });
  return { logger, lines };
}

/** Polls `condition` every 10 ms until it holds, or fails after `timeoutMs` (only bounds a hang) naming it. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

let turnCounter = 0;

export function turnJob(overrides: Partial<TurnJob> = {}): TurnJob {
  const n = ++turnCounter;
  return {
    type: "turn",
    sessionKey: `T0001:C0001:1700000000.${n}`,
    teamId: "T0001",
    channelId: "C0001",
    threadTs: `1700000000.${n}`,
    userId: "U0001",
    text: `message ${n}`,
    eventId: `Ev${n}`,
    messageTs: `1700000000.${n}`,
    isDm: false,
    ...overrides,
  };
}

export interface BullmqTestBackend {
  /** The BullMQ prefix of this test file (no trailing colon). */
  prefix: string;
  /** A queue object with its own Redis connections, as another process would have. */
  open(queueName: string, options?: Partial<Omit<BullmqTurnQueueOptions, "prefix" | "queueName">>): TurnQueue;
  /** Stops every opened queue and deletes this file's keys (never FLUSHDB: other files share Redis). */
  cleanup(): Promise<void>;
}

export function bullmqTestBackend(label: string): BullmqTestBackend {
  const prefix = uniqueRedisPrefix(label).slice(0, -1);
  const opened: TurnQueue[] = [];
  return {
    prefix,
    open(queueName, options = {}) {
      const queue = createBullmqTurnQueue({
        redis: testRedisUrl,
        logger: options.logger ?? createLogger({ level: "silent" }),
        ...options,
        prefix,
        queueName,
      });
      opened.push(queue);
      return queue;
    },
    async cleanup() {
      await Promise.all(opened.map((queue) => queue.stop({ timeoutMs: 1_000, abortGraceMs: 500 })));
      const admin = connectTestRedis();
      try {
        await deleteKeysWithPrefix(admin, `${prefix}:`);
      } finally {
        admin.disconnect();
      }
    },
  };
}
