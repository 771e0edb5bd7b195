import type { Pace } from "./tiers.ts";

/**
 * A token bucket over explicit times (milliseconds): `burst` tokens at most, refilled at `perMinute`.
 * A 429's Retry-After pauses it: no token until then, and one token at that moment (Slack lets the
 * next call through once the wait is over).
 */
export class TokenBucket {
  private tokens: number;
  /** The time `tokens` is counted at; in the future while paused. */
  private at: number;
  private readonly perMs: number;

  readonly pace: Pace;

  constructor(pace: Pace, now: number) {
    this.pace = pace;
    if (!(pace.perMinute > 0) || !(pace.burst >= 1))
      throw new Error(`A rate needs perMinute > 0 and burst >= 1, got ${JSON.stringify(pace)}`);
    this.perMs = pace.perMinute / 60_000;
    this.tokens = pace.burst;
    this.at = now;
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.tokens = Math.min(this.pace.burst, this.tokens + (now - this.at) * this.perMs);
    this.at = now;
  }

  /** Takes a token if one is there beyond `reserve` (kept for calls that must go first). */
  tryTake(now: number, reserve = 0): boolean {
    this.refill(now);
    if (now < this.at || this.tokens < 1 + reserve) return false;
    this.tokens -= 1;
    return true;
  }

  /** When `count` more tokens beyond `reserve` will have been there (now or later; never earlier). */
  readyAt(now: number, count = 1, reserve = 0): number {
    this.refill(now);
    const start = Math.max(now, this.at);
    const missing = count + reserve - this.tokens;
    return missing <= 0 ? start : start + Math.ceil(missing / this.perMs);
  }

  /** Slack answered 429: nothing before `until`, then one call. A shorter pause never shortens a longer one. */
  pause(until: number): void {
    if (until <= this.at) return;
    this.at = until;
    this.tokens = 1;
  }

  pausedUntil(now: number): number | undefined {
    return this.at > now ? this.at : undefined;
  }

  /** Full and not paused: forgetting the bucket loses nothing. */
  isFull(now: number): boolean {
    this.refill(now);
    return now >= this.at && this.tokens >= this.pace.burst;
  }
}
