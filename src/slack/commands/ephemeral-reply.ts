import type { RespondFn } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { SlackMessagePayload } from "../answer-blocks.ts";

export interface EphemeralReplyOptions {
  respond: RespondFn;
  client: WebClient;
  logger: Logger;
  /** Where the fallback `chat.postEphemeral` goes: the interaction's channel and user. */
  channel: string | undefined;
  user: string;
  message: SlackMessagePayload;
  /** Replace the message the button was on (response_url `replace_original`). */
  replaceOriginal?: boolean;
}

/**
 * Answers an interaction only the user sees: through its `response_url` (`respond`), and when that
 * fails (expired, used up, refused) with `chat.postEphemeral` instead. A reply that cannot be
 * delivered either way is logged, never thrown: the interaction was already acknowledged.
 */
export async function replyEphemeral(options: EphemeralReplyOptions): Promise<void> {
  const { respond, client, logger, channel, user, message } = options;
  const blocks = message.blocks;
  try {
    await respond({
      response_type: "ephemeral",
      ...(options.replaceOriginal ? { replace_original: true } : {}),
      text: message.text,
      blocks,
    });
    return;
  } catch (err) {
    // Bolt's RespondError (a non-2xx answer) or a network failure: either way, try the Web API.
    logger.warn({ err: errorMessage(err), user }, "response_url refused the reply; posting it ephemerally");
  }
  if (!channel) return;
  try {
    await client.chat.postEphemeral({ channel, user, text: message.text, blocks });
  } catch (err) {
    logger.error({ err: errorMessage(err), user, channel }, "could not deliver an ephemeral reply");
  }
}
