import { z } from "zod";
import { HermesError } from "../core/errors.ts";
import { defineTool } from "./define-tool.ts";
import { resolveReference } from "./references/resolve-reference.ts";
import {
  escapeSlackText,
  parseChannelRef,
  parseGroupRef,
  parseUserRef,
  type SlackPort,
} from "./slack-port.ts";

const input = z.object({
  to: z
    .string()
    .min(1)
    .describe(
      'A person (@li.ming, "Li Ming", U…, <@U…>), a channel (#general, C…, <#C…>), or a user group (@netops, <!subteam^S…>) together with in_channel',
    ),
  text: z.string().min(1).max(3000).describe("The message, plain text"),
  in_channel: z
    .string()
    .min(1)
    .optional()
    .describe("Only when `to` is a user group: the channel to post in, mentioning the group (#ops, C…)"),
});

/** A DM channel id (`D…`), which `conversations.info` and `chat.postMessage` take as a channel. */
const DM_ID = /^D[A-Z0-9]{2,}$/;
const channelOf = (ref: string) => parseChannelRef(ref) ?? (DM_ID.test(ref.trim()) ? ref.trim() : undefined);

/**
 * `send_message`: DM a user or post to a channel, on behalf of the requester. Always needs approval;
 * where it may go is checked by `sendMessageGuard` in policy (through Slack, not the model).
 *
 * A user group has no inbox of its own: a message to `@netops` is one post in the channel given as
 * `in_channel` (the requester must be a member), starting with the group's mention `<!subteam^S…>`,
 * so Slack notifies every member there and the group answers in one thread. Not a DM to each
 * member: one approval would fan out to any number of people, and their answers would scatter.
 */
export const sendMessage = (slack: SlackPort) =>
  defineTool({
    name: "send_message",
    description:
      "Send a Slack message on behalf of the requester to a user (DM) or to a channel the requester is a member of; to a user group (@netops), as one post in `in_channel` that mentions the group. Always needs the requester's approval.",
    level: "user",
    approval: "always",
    timeoutMs: 10_000,
    input,
    examples: [{ to: "#general", text: "hello" }],
    // Names become ids before policy: the membership guard and the audit log see the real channel.
    resolveArgs: async (args, _run, signal) => {
      const to = await resolveReference(slack, args.to, "recipient", { signal, groups: true });
      if (to.type !== "group") {
        if (args.in_channel)
          throw new HermesError(
            "bad_request",
            `in_channel is only for a user group; ${args.to} is a ${to.type === "user" ? "person" : "channel"}: leave in_channel out.`,
          );
        return { ...args, to: to.id };
      }
      if (!args.in_channel)
        throw new HermesError(
          "bad_request",
          `${args.to} is a user group: a message to a group is posted once in a channel, mentioning the group. Give in_channel, e.g. #ops.`,
        );
      const where = await resolveReference(slack, args.in_channel, "channel", { signal });
      return { ...args, to: to.id, in_channel: where.id };
    },
    execute: async ({ to, text, in_channel }, ctx) => {
      const signature = `\n_— sent by Hermes on behalf of <@${ctx.run.userId}>_`;
      const group = parseGroupRef(to);
      if (group) {
        const channel = in_channel ? channelOf(in_channel) : undefined;
        if (!channel)
          throw new HermesError(
            "bad_request",
            `A message to <!subteam^${group}> needs in_channel, a channel to post in.`,
          );
        const body = `<!subteam^${group}> ${escapeSlackText(text)}${signature}`;
        const posted = await slack.postMessage({ channel, text: body });
        return { sent: true, to: group, channel: posted.channel, ts: posted.ts };
      }
      const target = parseUserRef(to) ?? channelOf(to);
      if (!target)
        throw new HermesError(
          "bad_request",
          `"${to}" is not a Slack user or channel; give a #channel, an @person or their id.`,
        );
      const posted = await slack.postMessage({
        channel: target,
        text: `${escapeSlackText(text)}${signature}`,
      });
      return { sent: true, to: target, channel: posted.channel, ts: posted.ts };
    },
  });

/**
 * Policy guard: a channel (or a DM, `D…`) only where the requester is a member; a DM only to a real,
 * active person; a user group only into a channel the requester is a member of. Policy asks it when
 * the call is requested and again at resume, right before the approved call runs: both answers come
 * fresh from Slack (no cache), so a requester removed from the channel, or a person deactivated,
 * while the card waited is denied at execution.
 */
export const sendMessageGuard =
  (slack: SlackPort) =>
  async ({
    args,
    run,
  }: {
    args: Record<string, unknown>;
    run: { userId: string };
  }): Promise<string | undefined> => {
    const to = String(args.to ?? "");
    const group = parseGroupRef(to);
    const channel = group ? channelOf(String(args.in_channel ?? "")) : channelOf(to);
    if (group && !channel) return `a message to the user group ${group} needs in_channel`;
    if (channel) {
      return (await slack.isMember(channel, run.userId))
        ? undefined
        : `<@${run.userId}> is not a member of <#${channel}>`;
    }
    const user = parseUserRef(to);
    if (!user) return `"${to}" is not a Slack user or channel`;
    const found = await slack.getUser(user, { fresh: true });
    if (!found || found.deleted) return `there is no active Slack user ${user}`;
    if (found.isBot) return `${user} is a bot; messages go to people`;
    return undefined;
  };
