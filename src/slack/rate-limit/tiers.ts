/**
 * Slack's published Web API rate limits, as Hermes paces its own calls to them
 * (https://api.slack.com/docs/rate-limits). Limits apply per method per app per workspace; tiers give
 * the minimum per-minute rate ("1+", "20+", "50+", "100+"). `chat.postMessage` is special: about one
 * message per second per channel, short bursts tolerated. Slack publishes no burst sizes: the bursts
 * here are small on purpose, what Hermes sends at once without asking; beyond them a channel's post
 * budget goes on one call at a time while Slack accepts, and is paced at these rates after its first
 * 429 (`probe`, see `CallScheduler`).
 */
export interface Pace {
  perMinute: number;
  /** Calls that may go at once after a quiet spell (the bucket's size). */
  burst: number;
  /**
   * Beyond the bucket, deliver calls go on one at a time while Slack accepts them, until its first
   * 429 (Slack's burst allowance is unpublished). Only for a channel's own post budget: a
   * workspace-wide budget is shared by every channel, and a 429 there would pause them all.
   */
  probe?: boolean;
}

export type Tier = "tier1" | "tier2" | "tier3" | "tier4" | "post_per_channel";

export const TIER_PACE: Readonly<Record<Tier, Pace>> = {
  tier1: { perMinute: 1, burst: 1 },
  tier2: { perMinute: 20, burst: 3 },
  tier3: { perMinute: 50, burst: 5 },
  tier4: { perMinute: 100, burst: 10 },
  // Slack tolerates short bursts of posts: 2 leaves room for network jitter against a tolerance of 3.
  post_per_channel: { perMinute: 60, burst: 2, probe: true },
};

/** The methods Hermes calls (and a few neighbours), with their published tier. */
export const METHOD_TIER: Readonly<Record<string, Tier>> = {
  "chat.postMessage": "post_per_channel",
  "chat.update": "tier3",
  "chat.delete": "tier3",
  "chat.postEphemeral": "tier4",
  "chat.startStream": "tier2",
  "chat.appendStream": "tier4",
  "chat.stopStream": "tier2",
  "views.publish": "tier4",
  "views.open": "tier4",
  "views.update": "tier4",
  "conversations.open": "tier3",
  "conversations.info": "tier3",
  "conversations.history": "tier3",
  "conversations.replies": "tier3",
  "conversations.members": "tier4",
  "users.info": "tier4",
  "users.list": "tier2",
  "conversations.list": "tier2",
  "users.lookupByEmail": "tier3",
  "auth.test": "tier4",
  "files.getUploadURLExternal": "tier4",
  "files.completeUploadExternal": "tier4",
  "assistant.threads.setStatus": "tier3",
};

/** A method Slack does not list here gets tier 2: "most methods allow at least 20 requests per minute". */
export const DEFAULT_TIER: Tier = "tier2";

/** One rate budget: the methods' calls that share it, and how fast it refills. */
export interface RateKey {
  /** `chat.postMessage C0OPS` (per channel) or `chat.update` (per workspace: one bot token, one team). */
  key: string;
  tier: Tier;
  pace: Pace;
}

/**
 * The budget a call draws on. `scale` multiplies every rate (tests and benchmarks run against an
 * emulator with faster limits; production leaves it at 1).
 */
export function rateKeyOf(method: string, args: Record<string, unknown>, scale = 1): RateKey {
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new Error(`Slack rate scale must be a positive number, got ${scale}`);
  const tier = METHOD_TIER[method] ?? DEFAULT_TIER;
  const base = TIER_PACE[tier];
  const pace = scale === 1 ? base : { ...base, perMinute: base.perMinute * scale };
  if (tier === "post_per_channel") return { key: `${method} ${channelOf(args)}`, tier, pace };
  return { key: method, tier, pace };
}

/** The channel a call is about (`channel`, or `channel_id` for file uploads); `-` when it names none. */
export function channelOf(args: Record<string, unknown>): string {
  const c = args.channel ?? args.channel_id;
  return typeof c === "string" && c ? c : "-";
}
