import type { ApiArgs } from "./api-args.ts";

/**
 * Slack's published Web API limits as the emulator enforces them (https://api.slack.com/docs/rate-limits),
 * stated here on their own rather than taken from Hermes' pacing table, so a wrong table in one is
 * caught by the other. Per method per workspace: tier 1 1/min, tier 2 20/min, tier 3 50/min, tier 4
 * 100/min; `chat.postMessage` about 1 per second per channel. Bursts are not published: the emulator
 * tolerates the ones below (a well-paced client never sees a 429), and a test can make them stricter.
 */
const PER_MINUTE = { 1: 1, 2: 20, 3: 50, 4: 100 } as const;
const BURST = { 1: 1, 2: 5, 3: 10, 4: 20 } as const;
type TierNumber = keyof typeof PER_MINUTE;

const TIERS: Record<string, TierNumber> = {
  "chat.update": 3,
  "chat.delete": 3,
  "chat.postEphemeral": 4,
  "chat.startStream": 2,
  "chat.appendStream": 4,
  "chat.stopStream": 2,
  "views.publish": 4,
  "views.open": 4,
  "views.update": 4,
  "conversations.open": 3,
  "conversations.info": 3,
  "conversations.history": 3,
  "conversations.replies": 3,
  "conversations.members": 4,
  "users.info": 4,
  "users.list": 2,
  "conversations.list": 2,
  "usergroups.list": 2,
  "usergroups.users.list": 2,
  "auth.test": 4,
  "files.getUploadURLExternal": 4,
  "files.completeUploadExternal": 4,
  // assistant.threads.setStatus has Slack's "special" limits (unpublished): not limited here.
  "assistant.threads.setSuggestedPrompts": 4,
  "assistant.threads.setTitle": 4,
};
const POST_PER_MINUTE = 60;
const POST_BURST = 3;

export interface EmulatorRateLimitOptions {
  /** Multiplies every rate: a test's burst of hundreds of calls then takes seconds, not minutes. */
  scale?: number;
  /** Calls tolerated at once per budget, by method (e.g. `{ "chat.postMessage": 1 }`: no burst at all). */
  burst?: Record<string, number>;
  /** Milliseconds clock; `Date.now` by default. */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
  perMs: number;
  burst: number;
}

/**
 * Token buckets per budget: `chat.postMessage` per channel, every other method per workspace (the
 * emulator serves one). A call over budget is not counted and is answered 429 with `Retry-After`, in
 * whole seconds as Slack sends it (at least 1). Methods Slack lists with no tier here are not limited.
 */
export class EmulatorRateLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly scale: number;
  private readonly now: () => number;
  /** Calls answered 429, by budget. */
  readonly limited = new Map<string, number>();

  private readonly options: EmulatorRateLimitOptions;

  constructor(options: EmulatorRateLimitOptions = {}) {
    this.options = options;
    const scale = options.scale ?? 1;
    if (!(scale > 0) || !Number.isFinite(scale))
      throw new Error(`rate limit scale must be a positive number, got ${scale}`);
    for (const [method, burst] of Object.entries(options.burst ?? {}))
      if (!(burst >= 1)) throw new Error(`burst for ${method} must be at least 1, got ${burst}`);
    this.scale = scale;
    this.now = options.now ?? Date.now;
  }

  /** Seconds to wait when this call is over its budget; undefined when it may go (and is counted). */
  take(method: string, args: ApiArgs): number | undefined {
    const budget = this.budgetOf(method, args);
    if (!budget) return undefined;
    const now = this.now();
    let b = this.buckets.get(budget.key);
    if (!b) {
      b = { tokens: budget.burst, at: now, perMs: budget.perMinute / 60_000, burst: budget.burst };
      this.buckets.set(budget.key, b);
    }
    if (now > b.at) {
      b.tokens = Math.min(b.burst, b.tokens + (now - b.at) * b.perMs);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    this.limited.set(budget.key, (this.limited.get(budget.key) ?? 0) + 1);
    return Math.max(1, Math.ceil((1 - b.tokens) / b.perMs / 1000));
  }

  private budgetOf(method: string, args: ApiArgs) {
    const burst = this.options.burst?.[method];
    if (method === "chat.postMessage") {
      const channel = typeof args.channel === "string" ? args.channel : "-";
      return {
        key: `${method} ${channel}`,
        perMinute: POST_PER_MINUTE * this.scale,
        burst: burst ?? POST_BURST,
      };
    }
    const tier = TIERS[method];
    if (tier === undefined) return undefined;
    return { key: method, perMinute: PER_MINUTE[tier] * this.scale, burst: burst ?? BURST[tier] };
  }
}
