import type { z } from "zod";
import type { Logger } from "../../core/logger.ts";
import type { EventsSender } from "../events-sender.ts";
import { findButton } from "../interaction-payloads.ts";
import { sampleFileBytes } from "../sample-files.ts";
import type { Delivery } from "../signed-delivery.ts";
import { type UserFile, whyRefused } from "../user-files.ts";
import type { Workspace } from "../workspace.ts";
import type { SandboxUser } from "../workspace-types.ts";
import {
  appHomeSchema,
  blockActionSchema,
  describeIssues,
  MAX_ATTACHMENT_BYTES,
  type PageAttachment,
  postMessageSchema,
  slashCommandSchema,
} from "./api-inputs.ts";
import { PageApiError } from "./json-http.ts";
import { canSee, findPerson } from "./user-view.ts";

/** The events sender's methods the page drives: what a person does in a Slack client. */
export type PageSender = Pick<
  EventsSender,
  | "userSays"
  | "blockAction"
  | "slashCommand"
  | "appHomeOpened"
  | "assistantThreadStarted"
  | "assistantThreadContextChanged"
  | "agentMessage"
  | "agentSessionStopped"
>;

export interface PageActionsOptions {
  workspace: Workspace;
  sender: PageSender;
  logger: Logger;
}

/**
 * The page's writes, each checked as Slack would (a known person, a channel they are in, a button
 * that exists on a message they can see) and then delivered to the bot as Slack delivers it.
 */
export function createPageActions({ workspace, sender, logger }: PageActionsOptions) {
  function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new PageApiError(400, "invalid_input", describeIssues(parsed.error));
    return parsed.data;
  }

  function member(as: string, channel: string): SandboxUser {
    const user = person(workspace, as);
    if (!workspace.getChannel(channel)) throw new PageApiError(404, "channel_not_found", "No such channel.");
    if (!canSee(workspace, channel, as))
      throw new PageApiError(403, "not_in_channel", `${user.real_name} is not in that channel.`);
    return user;
  }

  /** Delivery went out; the bot's receiver must accept it (Slack would retry, the page just says so). */
  async function deliver(
    what: string,
    send: () => Promise<Delivery | undefined>,
  ): Promise<Delivery | undefined> {
    let delivery: Delivery | undefined;
    try {
      delivery = await send();
    } catch (err) {
      logger.warn({ err, what }, "sandbox page: the bot could not be reached");
      throw new PageApiError(502, "bot_unreachable", "Hermes could not be reached. Is it running?");
    }
    if (delivery && (delivery.status < 200 || delivery.status >= 300)) {
      logger.warn({ what, status: delivery.status }, "sandbox page: the bot refused a delivery");
      throw new PageApiError(502, "bot_refused", `Hermes answered HTTP ${delivery.status}.`);
    }
    return delivery;
  }

  return {
    /**
     * A message typed in the composer, with any attached files: reaches the bot in its DMs and when it
     * is mentioned (a `file_share` message / an `app_mention` carrying `files`).
     */
    async postMessage(body: unknown): Promise<{ ts: string; files: { id: string; name: string }[] }> {
      const input = parse(postMessageSchema, body);
      member(input.as, input.channel);
      if (input.threadTs && !workspace.getMessage(input.channel, input.threadTs))
        throw new PageApiError(404, "thread_not_found", "That thread no longer exists.");
      const files = attachedFiles(input.files ?? []);
      let ts = "";
      let posted: { id: string; name: string }[] = [];
      await deliver("message", async () => {
        const said = await sender.userSays({
          user: input.as,
          channel: input.channel,
          text: input.text,
          ...(input.threadTs ? { threadTs: input.threadTs } : {}),
          ...(files.length > 0 ? { files } : {}),
        });
        ts = said.message.ts;
        posted = (said.message.files ?? []).map((f) => ({ id: f.id, name: f.name }));
        return said.delivery;
      });
      return { ts, files: posted };
    },

    /**
     * A button click on a message the person can see (their own ephemerals included). A 👍/👎 click
     * also selects or unselects its side for them (answered as `feedbackSelected`, the value now
     * selected or null); as in Slack, only a click that selects reaches the app.
     */
    async blockAction(body: unknown): Promise<{ feedbackSelected?: string | null }> {
      const input = parse(blockActionSchema, body);
      member(input.as, input.channel);
      const message = workspace.getMessage(input.channel, input.messageTs, { includeEphemeral: true });
      if (!message || (message.ephemeral_for !== undefined && message.ephemeral_for !== input.as))
        throw new PageApiError(404, "message_not_found", "That message no longer exists.");
      const button = findButton(message.blocks, input.actionId, input.value);
      if (!button)
        throw new PageApiError(404, "button_not_found", "That button is no longer on the message.");
      const feedbackSelected =
        button.type === "feedback_buttons" && button.value !== undefined
          ? workspace.clickFeedback(
              { channel: input.channel, ts: input.messageTs, user: input.as, actionId: input.actionId },
              button.value,
            )
          : undefined;
      if (feedbackSelected === null) return { feedbackSelected };
      await deliver("block_actions", () =>
        sender.blockAction({
          user: input.as,
          channel: input.channel,
          messageTs: input.messageTs,
          actionId: input.actionId,
          ...(input.value !== undefined ? { value: input.value } : {}),
        }),
      );
      return feedbackSelected === undefined ? {} : { feedbackSelected };
    },

    /**
     * `/hermes …`: the answer comes back through the response_url as an ephemeral message, or in the
     * acknowledgement itself (Bolt's `ack(text)`), which Slack also shows.
     */
    async slashCommand(body: unknown): Promise<void> {
      const input = parse(slashCommandSchema, body);
      member(input.as, input.channel);
      const delivery = await deliver("slash_command", () =>
        sender.slashCommand({
          user: input.as,
          channel: input.channel,
          command: input.command,
          text: input.text,
        }),
      );
      const answer = delivery ? ackAnswer(delivery.body) : undefined;
      if (answer) {
        const message = {
          channel: input.channel,
          text: answer.text,
          user: workspace.bot.userId,
          botId: workspace.bot.botId,
          ...(answer.blocks ? { blocks: answer.blocks } : {}),
        };
        if (answer.inChannel) workspace.post(message);
        else workspace.postEphemeral({ ...message, visibleTo: input.as });
      }
    },

    /** The App Home tab was opened: the bot publishes the view, which streams back. */
    async appHomeOpened(body: unknown): Promise<void> {
      const input = parse(appHomeSchema, body);
      person(workspace, input.as);
      await deliver("app_home_opened", () => sender.appHomeOpened({ user: input.as }));
    },
  };
}

/** The composer's attachments as files to post (sample files read from the demo's), or a refusal. */
function attachedFiles(attachments: readonly PageAttachment[]): UserFile[] {
  const files = attachments.map((a): UserFile => {
    if ("sample" in a) {
      const bytes = sampleFileBytes(a.sample);
      if (!bytes)
        throw new PageApiError(
          404,
          "sample_not_found",
          `The sample file ${a.sample} is not in this sandbox.`,
        );
      return { name: a.sample, bytes };
    }
    return { name: a.name, bytes: Buffer.from(a.data, "base64"), ...(a.title ? { title: a.title } : {}) };
  });
  const refused = whyRefused(files);
  if (refused) throw new PageApiError(400, "invalid_file", refused);
  const total = files.reduce((sum, f) => sum + f.bytes.length, 0);
  if (total > MAX_ATTACHMENT_BYTES)
    throw new PageApiError(
      413,
      "too_large",
      `The files add up to more than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB; send fewer at a time.`,
    );
  return files;
}

/** The person behind `as`, or a refusal. */
export function person(workspace: Workspace, as: string): SandboxUser {
  const user = findPerson(workspace, as);
  if (!user) throw new PageApiError(403, "unknown_user", "No such person in this workspace.");
  return user;
}

/** A slash command's acknowledgement body as Slack reads it: plain text, or a message payload. */
export function ackAnswer(
  body: string,
): { text: string; blocks?: unknown[]; inChannel: boolean } | undefined {
  const trimmed = body.trim();
  if (!trimmed) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(trimmed);
  } catch {
    return { text: trimmed, inChannel: false };
  }
  if (typeof payload !== "object" || payload === null) return { text: trimmed, inChannel: false };
  const { text, blocks, response_type } = payload as Record<string, unknown>;
  if (typeof text !== "string" && !Array.isArray(blocks)) return undefined;
  return {
    text: typeof text === "string" ? text : "",
    ...(Array.isArray(blocks) ? { blocks } : {}),
    inChannel: response_type === "in_channel",
  };
}
