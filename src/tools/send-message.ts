import { z } from "zod";
import { HermesError } from "../core/errors.ts";
import { defineTool } from "./define-tool.ts";
import { resolveReference } from "./references/resolve-reference.ts";
import { escapeSlackText, parseChannelRef, parseUserRef, type SlackPort } from "./slack-port.ts";

const input = z.object({
  to: z
    .string()
    .min(1)
    .describe('A person (@li.ming, "Li Ming", U…, <@U…>) or a channel (#general, C…, <#C…>)'),
  text: z.string().min(1).max(3000).describe("The message, plain text"),
});

/**
 * `send_message`: DM a user or post to a channel, on behalf of the requester. Always needs approval;
 * where it may go is checked by `sendMessageGuard` in policy (through Slack, not the model).
 */
export const sendMessage = (slack: SlackPort) =>
  defineTool({
    name: "send_message",
    description:
      "Send a Slack message on behalf of the requester to a user (DM) or to a channel the requester is a member of. Always needs the requester's approval.",
    level: "user",
    approval: "always",
    timeoutMs: 10_000,
    input,
    examples: [{ to: "#general", text: "hello" }],
    // Names become ids before policy: the membership guard and the audit log see the real channel.
    resolveArgs: async (args, _run, signal) => ({
      ...args,
      to: (await resolveReference(slack, args.to, "recipient", { signal })).id,
    }),
    execute: async ({ to, text }, ctx) => {
      const target = parseUserRef(to) ?? parseChannelRef(to);
      if (!target)
        throw new HermesError(
          "bad_request",
          `"${to}" is not a Slack user or channel; give a #channel, an @person or their id.`,
        );
      const body = `${escapeSlackText(text)}\n_— sent by Hermes on behalf of <@${ctx.run.userId}>_`;
      const posted = await slack.postMessage({ channel: target, text: body });
      return { sent: true, to: target, channel: posted.channel, ts: posted.ts };
    },
  });

/**
 * Policy guard: a channel only where the requester is a member; a DM only to a real, active person.
 * Policy asks it when the call is requested and again at resume, right before the approved call
 * runs: both answers come fresh from Slack (no cache), so a requester removed from the channel, or a
 * person deactivated, while the card waited is denied at execution.
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
    const channel = parseChannelRef(to);
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
