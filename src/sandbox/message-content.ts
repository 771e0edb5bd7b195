import { type ApiArgs, jsonArg, stringArg } from "./api-args.ts";
import { invalidBlocks, SlackApiError } from "./api-error.ts";
import { LIMITS } from "./block-kit-rules.ts";
import { validateBlocks } from "./validate-blocks.ts";

export interface MessageContent {
  text?: string;
  blocks?: unknown[];
}

export interface ReadContentOptions {
  /**
   * What a too long `text` does: `chat.postMessage` truncates beyond 40,000 characters; `chat.update`
   * answers `msg_too_long` beyond 4,000.
   */
  overlongText: { max: number; action: "truncate" | "reject" };
}

/**
 * The `text` and `blocks` of a message-writing call, checked as Slack checks them: blocks must be a
 * JSON array (`invalid_blocks_format`) that passes Block Kit validation (`invalid_blocks`), and a
 * message needs text or blocks (`no_text`).
 */
export function readMessageContent(args: ApiArgs, { overlongText }: ReadContentOptions): MessageContent {
  const blocks = readBlocks(args);
  let text = stringArg(args, "text");
  const hasAttachments =
    args.attachments !== undefined && args.attachments !== "" && args.attachments !== "[]";
  if (!text && (!blocks || blocks.length === 0) && !hasAttachments) throw new SlackApiError("no_text");
  if (text !== undefined && text.length > overlongText.max) {
    if (overlongText.action === "reject") throw new SlackApiError("msg_too_long");
    text = text.slice(0, overlongText.max);
  }
  return { ...(text !== undefined ? { text } : {}), ...(blocks !== undefined ? { blocks } : {}) };
}

function readBlocks(args: ApiArgs): unknown[] | undefined {
  const blocks = jsonArg(args, "blocks", "invalid_blocks_format");
  if (blocks === undefined || blocks === null) return undefined;
  if (!Array.isArray(blocks)) throw new SlackApiError("invalid_blocks_format");
  const errors = validateBlocks(blocks, { maxBlocks: LIMITS.blocksPerMessage });
  if (errors.length > 0) throw invalidBlocks(errors);
  return blocks;
}
