import type { Logger } from "../../core/logger.ts";
import type { Pace } from "./tiers.ts";
import { TokenBucket } from "./token-bucket.ts";

/**
 * `deliver`: answers, cards, working messages — wait their turn and, on a 429, wait Retry-After and go
 * again (never dropped). `progress`: updates of a message whose latest text is all that matters — they
 * go only when no deliver call waits for the same budget, a newer one replaces a queued one, and a 429
 * drops them.
 */
export type Lane = "deliver" | "progress";

export interface ScheduledCall<T> {
  /** The rate budget drawn on (see `rateKeyOf`). */
  key: string;
  pace: Pace;
  lane: Lane;
  /** Progress: a queued call with the same id is replaced by this one. */
  coalesceId?: string;
  /** 429 answers this call waits out before it fails (default: the scheduler's). Progress: always 0. */
  rateLimitRetries?: number;
  /**
   * Deliver: fails (`too_late`) instead of waiting longer than this for its budget, as soon as that is
   * known (a 429 pausing the budget past it), for a caller with a quicker way to say the same thing.
   */
  maxWaitMs?: number;
  run: () => Promise<T>;
}

/** Why a call was not made: a newer update replaced it, its lane was full, or it was cancelled. */
export class SlackCallDropped extends Error {
  readonly code = "slack_call_dropped";
  readonly reason: "superseded" | "lane_full" | "cancelled" | "queue_full" | "too_late";
  constructor(reason: SlackCallDropped["reason"], key: string) {
    super(`Slack call on ${key} not made: ${reason.replace("_", " ")}`);
    this.name = "SlackCallDropped";
    this.reason = reason;
  }
}

export interface CallSchedulerOptions {
  /** 429 answers one deliver call may get (each waited out) before it fails; default 5. */
  rateLimitRetries?: number;
  /** Progress calls queued per budget at most; the oldest is dropped beyond (default 50). */
  maxQueuedProgress?: number;
  /** Deliver calls queued per budget at most; beyond, a call fails at once (default 10,000). */
  maxQueuedDeliver?: number;
  logger?: Logger;
  /** Told of each 429, with the budget's key (`/metrics` counts them by method). */
  onRateLimited?: (key: string) => void;
}

interface Pending {
  seq: number;
  call: ScheduledCall<unknown>;
  limited: number;
  /** `maxWaitMs` as a time, and the timer that enforces it. */
  deadline?: number;
  deadlineTimer?: NodeJS.Timeout;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

interface Budget {
  bucket: TokenBucket;
  /** Calls of this budget sent and not yet answered. */
  inFlight: number;
  /**
   * Slack answered 429 since this budget was made: from then on deliver calls wait for the bucket's
   * tokens. Until then a deliver call the bucket has no token for still goes once nothing else of
   * the budget is in flight (Slack's burst allowance is unpublished: it is used until Slack says no).
   */
  pushedBack: boolean;
  deliver: Pending[];
  /** Insertion-ordered; a replaced entry keeps its place, so a busy message is not sent to the back. */
  progress: Map<string, Pending>;
  timer?: NodeJS.Timeout;
  timerAt?: number;
}

/** Seconds Slack asked to wait, when `err` is the Web API client's rate-limited error. */
export function retryAfterSeconds(err: unknown): number | undefined {
  const e = err as { code?: unknown; retryAfter?: unknown } | null;
  if (e?.code !== "slack_webapi_rate_limited_error") return undefined;
  return typeof e.retryAfter === "number" && e.retryAfter >= 0 ? e.retryAfter : 1;
}

/**
 * One queue of Web API calls per rate budget (method, and channel where Slack counts per channel),
 * each paced by a token bucket. Deliver calls of a budget whose pace says `probe` (a channel's posts)
 * use Slack's burst allowance: beyond the bucket's tokens they go one at a time, each once the last is
 * answered, while Slack accepts them; the first 429 pauses the budget for its Retry-After and from
 * then on the bucket paces it, until the budget is idle and full again and is forgotten. Progress calls only ever use the bucket's tokens: a cosmetic
 * update never provokes a 429. Budgets are independent: a 429 pauses only the budget it came from,
 * never calls to other channels or methods (the stock WebClient pauses its whole queue). Work per call
 * is constant; idle budgets with full buckets and nothing in flight are forgotten.
 */
export class CallScheduler {
  private readonly budgets = new Map<string, Budget>();
  private seq = 0;
  private readonly retries: number;
  private readonly maxProgress: number;
  private readonly maxDeliver: number;
  private readonly logger: Logger | undefined;
  private readonly onRateLimited: ((key: string) => void) | undefined;

  constructor(options: CallSchedulerOptions = {}) {
    this.retries = options.rateLimitRetries ?? 5;
    this.maxProgress = options.maxQueuedProgress ?? 50;
    this.maxDeliver = options.maxQueuedDeliver ?? 10_000;
    this.logger = options.logger;
    this.onRateLimited = options.onRateLimited;
  }

  schedule<T>(call: ScheduledCall<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const b = this.budget(call.key, call.pace);
      const p: Pending = {
        seq: this.seq++,
        call: call as ScheduledCall<unknown>,
        limited: 0,
        resolve: resolve as (v: unknown) => void,
        reject,
      };
      if (call.lane === "deliver") {
        if (b.deliver.length >= this.maxDeliver) {
          this.logger?.error({ key: call.key, queued: b.deliver.length }, "Slack call queue full");
          return reject(new SlackCallDropped("queue_full", call.key));
        }
        b.deliver.push(p);
        if (call.maxWaitMs !== undefined) this.expireAt(call.key, b, p, Date.now() + call.maxWaitMs);
      } else {
        const id = call.coalesceId ?? `#${p.seq}`;
        const older = b.progress.get(id);
        if (older) older.reject(new SlackCallDropped("superseded", call.key));
        b.progress.set(id, p);
        if (b.progress.size > this.maxProgress) {
          const [oldestId, oldest] = b.progress.entries().next().value as [string, Pending];
          b.progress.delete(oldestId);
          oldest.reject(new SlackCallDropped("lane_full", call.key));
        }
      }
      this.pump(call.key);
    });
  }

  /** Cancels a queued progress call (not one already sent): its message is about to get its final text. */
  cancelProgress(key: string, coalesceId: string): void {
    const b = this.budgets.get(key);
    const p = b?.progress.get(coalesceId);
    if (!b || !p) return;
    b.progress.delete(coalesceId);
    p.reject(new SlackCallDropped("cancelled", key));
    this.pump(key);
  }

  /** How long a deliver call made now would wait before it is sent (0: at once). */
  expectedWaitMs(key: string): number {
    const b = this.budgets.get(key);
    if (!b) return 0;
    const now = Date.now();
    return b.bucket.readyAt(now, b.deliver.length + 1) - now;
  }

  /** Calls waiting, per budget (for logs and tests). */
  queued(): Record<string, { deliver: number; progress: number; pausedMs: number }> {
    const now = Date.now();
    const out: Record<string, { deliver: number; progress: number; pausedMs: number }> = {};
    for (const [key, b] of this.budgets) {
      const until = b.bucket.pausedUntil(now);
      out[key] = { deliver: b.deliver.length, progress: b.progress.size, pausedMs: until ? until - now : 0 };
    }
    return out;
  }

  private budget(key: string, pace: Pace): Budget {
    let b = this.budgets.get(key);
    if (!b) {
      b = {
        bucket: new TokenBucket(pace, Date.now()),
        deliver: [],
        progress: new Map(),
        inFlight: 0,
        pushedBack: false,
      };
      this.budgets.set(key, b);
    }
    return b;
  }

  /** Progress keeps one token back for deliver calls when the bucket holds more than one. */
  private reserve(b: Budget): number {
    return b.bucket.pace.burst > 1 ? 1 : 0;
  }

  private pump(key: string): void {
    const b = this.budgets.get(key);
    if (!b) return;
    const now = Date.now();
    for (;;) {
      if (b.deliver.length > 0) {
        // Beyond the bucket while Slack has not pushed back: one at a time, so a 429 keeps the order.
        const beyond =
          b.bucket.pace.probe === true &&
          !b.pushedBack &&
          b.inFlight === 0 &&
          b.bucket.pausedUntil(now) === undefined;
        if (!b.bucket.tryTake(now) && !beyond) break;
        this.start(key, b, b.deliver.shift()!);
      } else if (b.progress.size > 0) {
        if (!b.bucket.tryTake(now, this.reserve(b))) break;
        const [id, p] = b.progress.entries().next().value as [string, Pending];
        b.progress.delete(id);
        this.start(key, b, p);
      } else break;
    }
    if (b.deliver.length > 0) this.wake(key, b, b.bucket.readyAt(now));
    else if (b.progress.size > 0) this.wake(key, b, b.bucket.readyAt(now, 1, this.reserve(b)));
    // A call in flight pumps again when it is answered.
    else if (b.inFlight > 0) return;
    else if (b.bucket.isFull(now)) {
      if (b.timer) clearTimeout(b.timer);
      this.budgets.delete(key);
    } else this.wake(key, b, b.bucket.readyAt(now, b.bucket.pace.burst));
  }

  private wake(key: string, b: Budget, at: number): void {
    if (b.timer && b.timerAt !== undefined && b.timerAt <= at) return;
    if (b.timer) clearTimeout(b.timer);
    b.timerAt = at;
    b.timer = setTimeout(
      () => {
        b.timer = undefined;
        b.timerAt = undefined;
        this.pump(key);
      },
      Math.max(0, at - Date.now()),
    );
    // Pacing never keeps a stopping process alive on its own.
    b.timer.unref?.();
  }

  /** Fails a queued deliver call that has not started by `deadline`. */
  private expireAt(key: string, b: Budget, p: Pending, deadline: number): void {
    p.deadline = deadline;
    p.deadlineTimer = setTimeout(() => this.expire(key, b, p), Math.max(0, deadline - Date.now()));
    p.deadlineTimer.unref?.();
  }

  private expire(key: string, b: Budget, p: Pending): void {
    const at = b.deliver.indexOf(p);
    if (at === -1) return;
    b.deliver.splice(at, 1);
    if (p.deadlineTimer) clearTimeout(p.deadlineTimer);
    p.reject(new SlackCallDropped("too_late", key));
  }

  private start(key: string, b: Budget, p: Pending): void {
    if (p.deadlineTimer) clearTimeout(p.deadlineTimer);
    p.deadlineTimer = undefined;
    p.deadline = undefined;
    b.inFlight++;
    let running: Promise<unknown>;
    try {
      running = p.call.run();
    } catch (err) {
      running = Promise.reject(err);
    }
    running.then(
      (value) => {
        b.inFlight--;
        p.resolve(value);
        this.pump(key);
      },
      (err: unknown) => {
        b.inFlight--;
        this.settleFailed(key, b, p, err);
      },
    );
  }

  private settleFailed(key: string, b: Budget, p: Pending, err: unknown): void {
    const seconds = retryAfterSeconds(err);
    if (seconds === undefined) {
      p.reject(err);
      this.pump(key);
      return;
    }
    this.onRateLimited?.(key);
    b.pushedBack = true;
    b.bucket.pause(Date.now() + seconds * 1000);
    const budget = p.call.lane === "progress" ? 0 : (p.call.rateLimitRetries ?? this.retries);
    const retry = p.limited < budget;
    this.logger?.warn(
      { key, retryAfterSeconds: seconds, lane: p.call.lane, attempt: p.limited + 1, retry },
      "Slack rate limit: pausing this budget only",
    );
    if (!retry) {
      p.reject(err);
    } else {
      p.limited++;
      // Back in its original place: calls of a budget keep the order they were made in.
      const at = b.deliver.findIndex((q) => q.seq > p.seq);
      b.deliver.splice(at === -1 ? b.deliver.length : at, 0, p);
    }
    // Calls that would now wait past their deadline fail at once: their callers have a quicker way.
    const until = b.bucket.pausedUntil(Date.now());
    if (until !== undefined)
      for (const q of b.deliver.filter((q) => q.deadline !== undefined && q.deadline < until))
        this.expire(key, b, q);
    this.pump(key);
  }
}
