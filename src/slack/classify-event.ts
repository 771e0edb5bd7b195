import { fileRefsOf, type SlackFileRef } from "../files/intake/file-refs.ts";

/** The fields of an `app_mention` or `message` event Hermes reads (Slack sends more). */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  channel?: string;
  team?: string;
  /** Files shared with the message (Slack's file objects); read as references only (`fileRefsOf`). */
  files?: unknown;
}

export interface TurnRequest {
  teamId: string;
  channelId: string;
  userId: string;
  /** The message with the bot's own mention removed. */
  text: string;
  ts: string;
  /** The thread the answer goes to (the message's own ts when it starts one). */
  threadTs: string;
  /** True when the message is a reply inside an existing thread. */
  inThread: boolean;
  isDm: boolean;
  /** Files shared with the message, by reference (where their bytes are, `files.info` says). */
  files: SlackFileRef[];
}

// Subtypes that are a person writing; everything else (edits, deletions, joins, bots…) is ignored.
const HUMAN_SUBTYPES = new Set([undefined, "file_share", "thread_broadcast"]);

/**
 * Should Hermes answer this event? `app_mention` in channels, `message` in DMs (always, no mention
 * needed); never bot messages (its own included), edits, deletions, joins or other subtypes.
 */
export function classifyEvent(
  event: SlackMessageEvent,
  ctx: { teamId: string; botUserId: string; botId?: string },
): { answer: true; request: TurnRequest } | { answer: false; why: string } {
  if (!isWellFormed(event)) return { answer: false, why: "malformed event" };
  if (event.bot_id || event.subtype === "bot_message") return { answer: false, why: "bot message" };
  if (!HUMAN_SUBTYPES.has(event.subtype)) return { answer: false, why: `subtype ${event.subtype}` };
  if (!event.user || event.user === ctx.botUserId) return { answer: false, why: "own or anonymous message" };
  if (!event.channel || !event.ts) return { answer: false, why: "no channel or ts" };
  const isDm = event.channel_type === "im" || (event.type === "message" && event.channel.startsWith("D"));
  if (event.type === "message" && !isDm) return { answer: false, why: "channel message without a mention" };
  if (event.type !== "message" && event.type !== "app_mention")
    return { answer: false, why: `event ${event.type}` };
  const mention = new RegExp(`<@${ctx.botUserId}(\\|[^>]*)?>`, "g");
  const text = (event.text ?? "").replace(mention, "").trim();
  return {
    answer: true,
    request: {
      teamId: event.team ?? ctx.teamId,
      channelId: event.channel,
      userId: event.user,
      text,
      ts: event.ts,
      threadTs: event.thread_ts ?? event.ts,
      inThread: event.thread_ts !== undefined && event.thread_ts !== event.ts,
      isDm,
      files: fileRefsOf(event.files),
    },
  };
}

const TEXT_FIELDS = [
  "type",
  "subtype",
  "channel_type",
  "user",
  "bot_id",
  "text",
  "ts",
  "thread_ts",
  "channel",
  "team",
];

/** Every field read here is a string when present: a signed but odd body is ignored, never a crash. */
function isWellFormed(event: SlackMessageEvent): boolean {
  if (event === null || typeof event !== "object") return false;
  const fields = event as unknown as Record<string, unknown>;
  return TEXT_FIELDS.every((k) => fields[k] === undefined || typeof fields[k] === "string");
}
