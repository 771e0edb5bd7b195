import { randomBytes } from "node:crypto";
import {
  type AgentViewing,
  agentSessionStoppedEvent,
  appContextChangedEvent,
  appContextOf,
  streamingMessagesOf,
} from "./agent-events.ts";
import { assistantThreadsOf } from "./assistant-threads.ts";
import {
  type AppIdentity,
  appHomeOpenedEvent,
  appMentionEvent,
  assistantThreadEvent,
  type ChannelType,
  eventCallback,
  type MessageSubtypeInput,
  subtypeMessageEvent,
  userMessageEvent,
} from "./event-payloads.ts";
import type {
  BlockActionInput,
  MessageInput,
  SlashCommandInput,
  UserMessageInput,
} from "./events-sender-inputs.ts";
import { isPublicFile, slackFileObject } from "./file-objects.ts";
import {
  blockActionsPayload,
  findButton,
  interactivityBody,
  slashCommandBody,
} from "./interaction-payloads.ts";
import { modalsOf } from "./modals.ts";
import { postAsUser } from "./post-as-user.ts";
import type { ResponseUrlTarget } from "./response-urls.ts";
import { type Delivery, type DeliveryOptions, deliverSigned } from "./signed-delivery.ts";
import {
  submissionCloses,
  type ViewStateValues,
  viewBlockActionsPayload,
  viewSubmissionPayload,
} from "./view-interactions.ts";
import { DEFAULT_BOT, DEFAULT_TEAM, type Workspace } from "./workspace.ts";
import type { SandboxMessage } from "./workspace-types.ts";

/** The sandbox Slack the sender works with (the `SlackApiEmulator` is one). */
export interface SandboxSlack {
  workspace: Workspace;
  mintResponseUrl(target: ResponseUrlTarget): string;
  /** The emulator's address: attached files get their `url_private` there. */
  readonly origin?: string;
}

export interface EventsSenderOptions {
  /** The receiver, e.g. `http://127.0.0.1:3000/slack/events`. */
  url: string;
  signingSecret: string;
  /**
   * With it, user messages are first posted into its workspace (so threads, `conversations.replies`
   * and replies work), clicks carry the real message, and `response_url`s are minted on the emulator.
   */
  slack?: SandboxSlack;
  /** The legacy verification token Slack puts in bodies (the fixtures' one by default). */
  verificationToken?: string;
  /** The app is installed org-wide in the workspace's org: events carry the org's authorization. */
  orgInstall?: boolean;
  /** Milliseconds since the epoch for `event_time` and made-up ts (default: the workspace's clock). */
  now?: () => number;
}

export type {
  BlockActionInput,
  MessageInput,
  SlashCommandInput,
  UserMessageInput,
} from "./events-sender-inputs.ts";
export type { Delivery, DeliveryOptions } from "./signed-delivery.ts";

export type EventsSender = ReturnType<typeof createEventsSender>;

/**
 * Delivers Events API callbacks, interactivity payloads and slash commands to a receiver exactly as
 * Slack does: same bodies, same content types, signed with the signing secret.
 */
export function createEventsSender(options: EventsSenderOptions) {
  const workspace = options.slack?.workspace;
  const now = options.now ?? workspace?.now ?? Date.now;
  const app: AppIdentity = {
    teamId: workspace?.team.id ?? DEFAULT_TEAM.id,
    apiAppId: workspace?.bot.appId ?? DEFAULT_BOT.appId,
    botUserId: workspace?.bot.userId ?? DEFAULT_BOT.userId,
    verificationToken: options.verificationToken ?? "ZZZZZZWSxiZZZ2yIvs3peJ",
    enterpriseId: workspace?.team.enterpriseId,
    isEnterpriseInstall: options.orgInstall,
  };
  const teamDomain = workspace?.team.domain ?? DEFAULT_TEAM.domain;
  const fallbackTs = () =>
    `${Math.floor(now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;
  const nextTs = workspace?.nextTs ?? fallbackTs;

  async function send(
    body: string,
    contentType: string,
    delivery: DeliveryOptions,
    extra: Pick<Delivery, "payload" | "eventId" | "message">,
  ): Promise<Delivery> {
    const { url, signingSecret } = options;
    return {
      ...(await deliverSigned({ url, signingSecret, body, contentType, options: delivery })),
      ...extra,
    };
  }

  function sendEvent(event: Record<string, unknown>, delivery: DeliveryOptions, message?: SandboxMessage) {
    const eventId = delivery.eventId ?? `Ev${randomBytes(5).toString("hex").toUpperCase()}`;
    const payload = eventCallback(app, event, { eventId, eventTime: Math.floor(now() / 1000) });
    return send(JSON.stringify(payload), "application/json", delivery, {
      payload,
      eventId,
      ...(message ? { message } : {}),
    });
  }

  function channelTypeOf(channel: string): ChannelType {
    const known = workspace?.getChannel(channel);
    if (known) return known.is_im ? "im" : known.is_private ? "group" : "channel";
    return channel.startsWith("D") ? "im" : channel.startsWith("G") ? "group" : "channel";
  }

  /** A person's post in the workspace, attachments stored at the emulator's address. */
  function post(input: UserMessageInput): SandboxMessage {
    if (!workspace) throw new Error("posting as a person needs the sender's `slack` option.");
    const origin = input.files && input.files.length > 0 ? options.slack?.origin : undefined;
    return postAsUser(workspace, { ...input, ...(origin ? { origin } : {}) });
  }

  /** The message's files as Slack's file objects in an event. */
  function eventFiles(message: SandboxMessage | undefined) {
    if (!workspace || !message?.files?.length) return undefined;
    return message.files.map((f) =>
      slackFileObject(f, { teamId: app.teamId, isPublic: isPublicFile(workspace, f) }),
    );
  }

  /** Records a person's message in the workspace (unless it names a ts) and returns its fields. */
  function recordUserMessage(input: UserMessageInput, recorded?: SandboxMessage) {
    if (input.files?.length && !recorded && (!workspace || input.ts))
      throw new Error(
        "files need the sender's `slack` option and no given ts: they are stored in the workspace.",
      );
    const message = recorded ?? (workspace && !input.ts ? post(input) : undefined);
    const files = eventFiles(message);
    const ts = message?.ts ?? input.ts ?? nextTs();
    const threadTs = message?.thread_ts ?? input.threadTs;
    const parentUserId =
      message?.parent_user_id ??
      (threadTs && workspace?.getMessage(input.channel, threadTs)?.user) ??
      undefined;
    const event = {
      user: input.user,
      channel: input.channel,
      text: input.text,
      ts,
      team: app.teamId,
      ...(threadTs ? { threadTs } : {}),
      ...(parentUserId ? { parentUserId } : {}),
      ...(message?.client_msg_id ? { clientMsgId: message.client_msg_id } : {}),
      ...(message?.blocks ? { blocks: message.blocks } : {}),
      ...(files ? { files } : {}),
    };
    return { event, message };
  }

  function userName(id: string): string {
    return workspace?.getUser(id)?.name ?? id;
  }

  function channelName(id: string): string {
    const channel = workspace?.getChannel(id);
    if (channel?.is_im || (!channel && id.startsWith("D"))) return "directmessage";
    return channel?.name ?? id;
  }

  function responseUrlFor(target: ResponseUrlTarget, given?: string): string {
    if (given) return given;
    if (options.slack)
      return options.slack.mintResponseUrl(workspace ? { ...target, teamId: workspace.team.id } : target);
    return `https://hooks.slack.com/actions/${app.teamId}/${Date.now()}/${randomBytes(12).toString("hex")}`;
  }

  /** A trigger id for an interaction of `user`, handed to the workspace so `views.open` may take it. */
  const triggerId = (user: string, given?: string) => {
    const id = given ?? `${Date.now()}.${randomBytes(5).toString("hex")}.${randomBytes(16).toString("hex")}`;
    if (workspace) modalsOf(workspace).issueTrigger(id, user);
    return id;
  };

  return {
    /** `app_mention` in a channel. */
    appMention(input: UserMessageInput, delivery: DeliveryOptions = {}): Promise<Delivery> {
      const { event, message } = recordUserMessage(input);
      return sendEvent(appMentionEvent(event), delivery, message);
    },

    /** `message.im`: a person writes in their DM with the bot (channel defaults to that DM). */
    messageIm(
      input: Omit<UserMessageInput, "channel"> & { channel?: string },
      delivery: DeliveryOptions = {},
    ) {
      const channel = input.channel ?? workspace?.openDm(input.user).id ?? `D${input.user.slice(1)}`;
      const { event, message } = recordUserMessage({ ...input, channel });
      return sendEvent(userMessageEvent({ ...event, channelType: "im" }), delivery, message);
    },

    /** A `message` event with a subtype the bot should ignore (bot_message, message_changed, …). */
    message(input: MessageInput, delivery: DeliveryOptions = {}): Promise<Delivery> {
      const event = subtypeMessageEvent(
        { ...input, ts: input.ts ?? nextTs() } as MessageSubtypeInput,
        channelTypeOf(input.channel),
      );
      return sendEvent(event, delivery);
    },

    /**
     * What Slack sends when `user` types `text` in a client: records it in the workspace, then
     * delivers `message.im` in the bot's DMs, `app_mention` in channels when the text mentions the bot
     * (and the bot is a member), and nothing otherwise (Hermes subscribes to no other message events).
     */
    async userSays(
      input: Omit<UserMessageInput, "ts">,
      delivery: DeliveryOptions = {},
    ): Promise<{ message: SandboxMessage; delivery?: Delivery }> {
      if (!workspace) throw new Error("userSays needs the sender's `slack` option (a sandbox workspace).");
      const message = post(input);
      const channel = workspace.getChannel(input.channel);
      const { event } = recordUserMessage({ ...input, ts: message.ts }, message);
      if (channel?.is_im && channel.members.includes(app.botUserId)) {
        const im = userMessageEvent({ ...event, channelType: "im" });
        return { message, delivery: await sendEvent(im, delivery, message) };
      }
      const mentioned =
        input.text.includes(`<@${app.botUserId}>`) && channel?.members.includes(app.botUserId);
      return {
        message,
        ...(mentioned ? { delivery: await sendEvent(appMentionEvent(event), delivery, message) } : {}),
      };
    },

    /** A click on a button of `messageTs` (form-encoded `block_actions` payload). */
    blockAction(input: BlockActionInput, delivery: DeliveryOptions = {}): Promise<Delivery> {
      const message = workspace?.getMessage(input.channel, input.messageTs, { includeEphemeral: true });
      const found = findButton(message?.blocks, input.actionId, input.value);
      const action = found ?? {
        actionId: input.actionId,
        blockId: input.blockId ?? "",
        text: "",
        type: "button",
      };
      const value = input.value ?? found?.value;
      const threadTs = input.threadTs ?? message?.thread_ts;
      const {
        channel: _c,
        ephemeral_for: _e,
        ...shown
      } = message ?? {
        type: "message",
        user: app.botUserId,
        bot_id: DEFAULT_BOT.botId,
        ts: input.messageTs,
        text: "",
        team: app.teamId,
        blocks: [],
      };
      const payload = blockActionsPayload(app, {
        user: { id: input.user, name: userName(input.user) },
        teamDomain,
        channel: { id: input.channel, name: channelName(input.channel) },
        message: shown,
        messageTs: input.messageTs,
        ...(threadTs ? { threadTs } : {}),
        isEphemeral: message?.ephemeral_for !== undefined,
        action: { ...action, ...(value !== undefined ? { value } : {}) },
        actionTs: nextTs(),
        responseUrl: responseUrlFor(
          {
            channel: input.channel,
            user: input.user,
            messageTs: input.messageTs,
            ...(threadTs ? { threadTs } : {}),
          },
          input.responseUrl,
        ),
        triggerId: triggerId(input.user, input.triggerId),
      });
      return send(interactivityBody(payload), "application/x-www-form-urlencoded", delivery, { payload });
    },

    /** A click on a button of `user`'s App Home (`block_actions` from a view, with a trigger id). */
    homeAction(
      input: { user: string; actionId: string; value?: string },
      delivery: DeliveryOptions = {},
    ): Promise<Delivery> {
      const view = workspace?.getView(input.user);
      if (!view) throw new Error(`${input.user} has no App Home view to click in`);
      const action = findButton(view.blocks, input.actionId, input.value);
      if (!action)
        throw new Error(`no button ${input.actionId} (${input.value ?? "any value"}) in the App Home`);
      const payload = viewBlockActionsPayload(app, {
        user: { id: input.user, name: userName(input.user) },
        teamDomain,
        view,
        action,
        actionTs: nextTs(),
        triggerId: triggerId(input.user),
      });
      return send(interactivityBody(payload), "application/x-www-form-urlencoded", delivery, { payload });
    },

    /**
     * `user` submits the open modal `viewId` with `values` (`values[block_id][action_id]`, as Slack
     * sends them). The modal closes unless the app's answer keeps it open (`response_action: errors`).
     */
    async viewSubmission(
      input: { user: string; viewId: string; values: ViewStateValues },
      delivery: DeliveryOptions = {},
    ): Promise<Delivery> {
      if (!workspace) throw new Error("viewSubmission needs the sender's `slack` option.");
      const modals = modalsOf(workspace);
      const view = modals.get(input.viewId);
      if (!view || view.user !== input.user)
        throw new Error(`no modal ${input.viewId} open for ${input.user}`);
      const payload = viewSubmissionPayload(app, {
        user: { id: input.user, name: userName(input.user) },
        teamDomain,
        view,
        values: input.values,
        triggerId: triggerId(input.user),
      });
      const sent = await send(interactivityBody(payload), "application/x-www-form-urlencoded", delivery, {
        payload,
      });
      if (submissionCloses(sent.status, sent.body)) modals.close(input.viewId);
      return sent;
    },

    /** A slash command (`/hermes …` by default), form-encoded as Slack posts it. */
    slashCommand(input: SlashCommandInput, delivery: DeliveryOptions = {}): Promise<Delivery> {
      const body = slashCommandBody(app, {
        user: { id: input.user, name: userName(input.user) },
        teamDomain,
        channel: { id: input.channel, name: channelName(input.channel) },
        command: input.command ?? "/hermes",
        text: input.text ?? "",
        responseUrl: responseUrlFor({ channel: input.channel, user: input.user }, input.responseUrl),
        triggerId: triggerId(input.user, input.triggerId),
      });
      const payload = Object.fromEntries(new URLSearchParams(body));
      return send(body, "application/x-www-form-urlencoded", delivery, { payload });
    },

    /** `app_home_opened` for `user` (with their published Home view, if any, as Slack includes it). */
    appHomeOpened(input: { user: string; tab?: "home" | "messages" }, delivery: DeliveryOptions = {}) {
      const channel = workspace?.openDm(input.user).id ?? `D${input.user.slice(1)}`;
      const view = workspace?.getView(input.user);
      const event = appHomeOpenedEvent({
        user: input.user,
        channel,
        tab: input.tab ?? "home",
        eventTs: nextTs(),
        view,
      });
      return sendEvent(event, delivery);
    },

    /**
     * `user` opens a new thread in the assistant split view while looking at channel `viewing`:
     * the thread is made in their DM with the bot, then `assistant_thread_started` is delivered.
     */
    async assistantThreadStarted(input: { user: string; viewing?: string }, delivery: DeliveryOptions = {}) {
      if (!workspace) throw new Error("assistantThreadStarted needs the sender's `slack` option.");
      const thread = assistantThreadsOf(workspace).open(input.user, input.viewing);
      const event = assistantThreadEvent({ type: "assistant_thread_started", ...thread, eventTs: nextTs() });
      return { thread, delivery: await sendEvent(event, delivery) };
    },

    /** The user of an open assistant thread now looks at channel `viewing`. */
    async assistantThreadContextChanged(
      input: { channel: string; threadTs: string; viewing?: string },
      delivery: DeliveryOptions = {},
    ) {
      const thread = workspace
        ? assistantThreadsOf(workspace).changeContext(input.channel, input.threadTs, input.viewing)
        : undefined;
      if (!thread) throw new Error(`no assistant thread ${input.channel}/${input.threadTs}`);
      const event = assistantThreadEvent({
        type: "assistant_thread_context_changed",
        ...thread,
        eventTs: nextTs(),
      });
      return sendEvent(event, delivery);
    },

    /**
     * `message.im` in the agent's Messages tab: like `messageIm`, with `app_context` (what the user
     * is looking at, as `context.entities`). A message outside a thread starts a session.
     */
    agentMessage(
      input: Omit<UserMessageInput, "channel"> & { channel?: string; viewing?: AgentViewing },
      delivery: DeliveryOptions = {},
    ) {
      const { viewing, ...rest } = input;
      const channel = rest.channel ?? workspace?.openDm(rest.user).id ?? `D${rest.user.slice(1)}`;
      const { event, message } = recordUserMessage({ ...rest, channel });
      const im = userMessageEvent({ ...event, channelType: "im" });
      return sendEvent({ ...im, app_context: appContextOf(viewing, app.teamId) }, delivery, message);
    },

    /** `app_context_changed`: `user` now looks at `viewing` with the agent's Messages tab open. */
    appContextChanged(input: { user: string; viewing?: AgentViewing }, delivery: DeliveryOptions = {}) {
      const channel = workspace?.openDm(input.user).id ?? `D${input.user.slice(1)}`;
      const event = appContextChangedEvent({
        user: input.user,
        channel,
        context: appContextOf(input.viewing, app.teamId),
        eventTs: nextTs(),
      });
      return sendEvent(event, delivery);
    },

    /** `agent_session_stopped`: `user` clicked Stop on the session of `threadTs` (its streaming messages listed). */
    agentSessionStopped(
      input: { user: string; channel: string; threadTs: string; streamingMessageTs?: string[] },
      delivery: DeliveryOptions = {},
    ) {
      const streaming =
        input.streamingMessageTs ?? streamingMessagesOf(workspace?.replies(input.channel, input.threadTs));
      const event = agentSessionStoppedEvent({
        user: input.user,
        channel: input.channel,
        threadTs: input.threadTs,
        streamingMessageTs: streaming,
        eventTs: nextTs(),
      });
      return sendEvent(event, delivery);
    },

    /**
     * Any other event exactly as given (a directory change: `user_change`, `channel_rename`, … from
     * `directory-event-payloads.ts`), in its `event_callback` envelope.
     */
    event(event: Record<string, unknown>, delivery: DeliveryOptions = {}): Promise<Delivery> {
      return sendEvent(event, delivery);
    },

    /** The `url_verification` handshake Slack sends when the request URL is set. */
    urlVerification(challenge = randomBytes(16).toString("hex"), delivery: DeliveryOptions = {}) {
      const payload = { token: app.verificationToken, challenge, type: "url_verification" };
      return send(JSON.stringify(payload), "application/json", delivery, { payload });
    },

    /** Sends an earlier request again, freshly signed, as Slack's retries do (same body, same event_id). */
    redeliver(previous: Delivery, delivery: DeliveryOptions = { retryNum: 1, retryReason: "http_timeout" }) {
      return send(previous.request.body, previous.request.contentType, delivery, {
        payload: previous.payload,
        ...(previous.eventId ? { eventId: previous.eventId } : {}),
      });
    },
  };
}
