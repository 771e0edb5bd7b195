import { randomUUID } from "node:crypto";
import { richTextBlocks } from "./rich-text.ts";

/** Events API bodies shaped as Slack sends them (see shared/fixtures/slack/). */

export interface AppIdentity {
  teamId: string;
  apiAppId: string;
  botUserId: string;
  /** The legacy verification token Slack still puts in every body. */
  verificationToken: string;
  /** The workspace's Enterprise org, if any; `isEnterpriseInstall` when the app is installed org-wide. */
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

export type ChannelType = "channel" | "group" | "im" | "mpim";

/** The `event_callback` envelope around one event. */
export function eventCallback(
  app: AppIdentity,
  event: Record<string, unknown>,
  { eventId, eventTime }: { eventId: string; eventTime: number },
): Record<string, unknown> {
  // In an org the event names its workspace and org (`context_*`); an org-wide install's authorization has no team.
  const org = app.enterpriseId
    ? {
        enterprise_id: app.enterpriseId,
        context_team_id: app.teamId,
        context_enterprise_id: app.enterpriseId,
      }
    : {};
  return {
    token: app.verificationToken,
    team_id: app.teamId,
    ...org,
    api_app_id: app.apiAppId,
    event,
    type: "event_callback",
    event_id: eventId,
    event_time: eventTime,
    authorizations: [
      {
        enterprise_id: app.enterpriseId ?? null,
        team_id: app.isEnterpriseInstall ? null : app.teamId,
        user_id: app.botUserId,
        is_bot: true,
        is_enterprise_install: Boolean(app.isEnterpriseInstall),
      },
    ],
    is_ext_shared_channel: false,
  };
}

export interface UserMessageEvent {
  user: string;
  channel: string;
  text: string;
  ts: string;
  threadTs?: string;
  parentUserId?: string;
  team: string;
  clientMsgId?: string;
  /** The rich_text blocks of the recorded message; made from `text` when absent. */
  blocks?: unknown[];
  /** Slack file objects the person attached (`slackFileObject`): the event then carries them. */
  files?: Record<string, unknown>[];
}

/** `app_mention`: someone wrote `<@bot>` in a channel the bot is in (with `files` when they attached some). */
export function appMentionEvent(input: UserMessageEvent): Record<string, unknown> {
  return { type: "app_mention", ...userMessageFields(input) };
}

/**
 * A person's `message` (`message.im` when `channelType` is `im`); with files it is Slack's
 * `subtype: "file_share"` message carrying them.
 */
export function userMessageEvent(
  input: UserMessageEvent & { channelType: ChannelType },
): Record<string, unknown> {
  const { channelType, ...rest } = input;
  return {
    type: "message",
    ...userMessageFields(rest),
    ...(hasFiles(rest) ? { subtype: "file_share" } : {}),
    channel_type: channelType,
  };
}

function hasFiles(input: UserMessageEvent): boolean {
  return input.files !== undefined && input.files.length > 0;
}

function userMessageFields(input: UserMessageEvent): Record<string, unknown> {
  const withFiles = hasFiles(input);
  return {
    user: input.user,
    text: input.text,
    ...(withFiles ? { files: input.files, upload: true, display_as_bot: false } : {}),
    ts: input.ts,
    ...(input.threadTs && input.threadTs !== input.ts ? { thread_ts: input.threadTs } : {}),
    ...(input.parentUserId && input.threadTs ? { parent_user_id: input.parentUserId } : {}),
    channel: input.channel,
    event_ts: input.ts,
    client_msg_id: input.clientMsgId ?? randomUUID(),
    team: input.team,
    ...(withFiles && !input.blocks && !input.text
      ? {}
      : { blocks: input.blocks ?? richTextBlocks(input.text) }),
  };
}

/** The `message` subtypes a bot sees and must mostly ignore. */
export type MessageSubtypeInput =
  | { subtype: "bot_message"; botId: string; channel: string; text: string; ts: string; threadTs?: string }
  | {
      subtype: "message_changed";
      channel: string;
      user: string;
      /** The edited message's ts. */
      messageTs: string;
      text: string;
      previousText: string;
      ts: string;
    }
  | {
      subtype: "message_deleted";
      channel: string;
      deletedTs: string;
      user: string;
      previousText: string;
      ts: string;
    }
  | { subtype: "channel_join"; channel: string; user: string; ts: string; inviter?: string };

export function subtypeMessageEvent(
  input: MessageSubtypeInput,
  channelType: ChannelType,
): Record<string, unknown> {
  const base = { type: "message", subtype: input.subtype };
  switch (input.subtype) {
    case "bot_message":
      return {
        ...base,
        bot_id: input.botId,
        text: input.text,
        ts: input.ts,
        ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
        channel: input.channel,
        event_ts: input.ts,
        channel_type: channelType,
      };
    case "message_changed":
      return {
        ...base,
        hidden: true,
        channel: input.channel,
        channel_type: channelType,
        ts: input.ts,
        event_ts: input.ts,
        message: {
          type: "message",
          user: input.user,
          text: input.text,
          ts: input.messageTs,
          edited: { user: input.user, ts: input.ts },
        },
        previous_message: {
          type: "message",
          user: input.user,
          text: input.previousText,
          ts: input.messageTs,
        },
      };
    case "message_deleted":
      return {
        ...base,
        hidden: true,
        channel: input.channel,
        channel_type: channelType,
        ts: input.ts,
        deleted_ts: input.deletedTs,
        event_ts: input.ts,
        previous_message: {
          type: "message",
          user: input.user,
          text: input.previousText,
          ts: input.deletedTs,
        },
      };
    case "channel_join":
      return {
        ...base,
        user: input.user,
        text: `<@${input.user}> has joined the channel`,
        ...(input.inviter ? { inviter: input.inviter } : {}),
        ts: input.ts,
        channel: input.channel,
        event_ts: input.ts,
        channel_type: channelType,
      };
  }
}

export function appHomeOpenedEvent(input: {
  user: string;
  channel: string;
  tab: "home" | "messages";
  eventTs: string;
  view?: unknown;
}): Record<string, unknown> {
  return {
    type: "app_home_opened",
    user: input.user,
    channel: input.channel,
    tab: input.tab,
    event_ts: input.eventTs,
    ...(input.view ? { view: input.view } : {}),
  };
}

/**
 * `assistant_thread_started` (the user opened a new thread in the assistant split view) or
 * `assistant_thread_context_changed` (they now look at another channel while it is open).
 */
export function assistantThreadEvent(input: {
  type: "assistant_thread_started" | "assistant_thread_context_changed";
  user: string;
  channel: string;
  threadTs: string;
  context: object;
  eventTs: string;
}): Record<string, unknown> {
  return {
    type: input.type,
    assistant_thread: {
      user_id: input.user,
      context: input.context,
      channel_id: input.channel,
      thread_ts: input.threadTs,
    },
    event_ts: input.eventTs,
  };
}
