import { randomBytes } from "node:crypto";
import { type ApiArgs, booleanArg, stringArg } from "./api-args.ts";
import { SlackApiError } from "./api-error.ts";
import { LIMITS } from "./block-kit-rules.ts";
import { readMessageContent } from "./message-content.ts";
import type { Workspace } from "./workspace.ts";

/** Where a `response_url` answers: the interaction's channel and user, and the message clicked (if any). */
export interface ResponseUrlTarget {
  channel: string;
  /** Who interacted: ephemeral answers are shown to them. */
  user: string;
  /** The message with the clicked button; what `replace_original` / `delete_original` act on. */
  messageTs?: string;
  /** New messages go into this thread. */
  threadTs?: string;
  /** The interaction's workspace, when the emulator serves several (default: its first). */
  teamId?: string;
}

export const RESPONSE_URL_MAX_USES = 5;
export const RESPONSE_URL_TTL_MS = 30 * 60 * 1000;

interface Minted {
  target: ResponseUrlTarget;
  workspace: Workspace;
  uses: number;
  expiresAt: number;
}

export interface ResponseUrlAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * `response_url`s as Slack serves them: up to 5 uses within 30 minutes; a body may replace or delete
 * the original message, or post a new one (`response_type` `ephemeral`, the default, or `in_channel`).
 * Everything is posted as the app's bot, so `chat.update` works on it later.
 */
export class ResponseUrls {
  private readonly minted = new Map<string, Minted>();

  private readonly workspace: Workspace;

  constructor(workspace: Workspace) {
    this.workspace = workspace;
  }

  /** A new id for `target` in `workspace` (default the first); the emulator serves it at `/response/<id>`. */
  mint(target: ResponseUrlTarget, workspace: Workspace = this.workspace): string {
    const id = randomBytes(12).toString("hex");
    this.minted.set(id, { target, workspace, uses: 0, expiresAt: workspace.now() + RESPONSE_URL_TTL_MS });
    return id;
  }

  respond(id: string, body: ApiArgs): ResponseUrlAnswer {
    const entry = this.minted.get(id);
    if (!entry) return { status: 404, body: { ok: false, error: "no_service" } };
    if (entry.workspace.now() > entry.expiresAt)
      return { status: 404, body: { ok: false, error: "expired_url" } };
    if (entry.uses >= RESPONSE_URL_MAX_USES) return { status: 404, body: { ok: false, error: "used_url" } };
    entry.uses += 1;
    try {
      this.apply(entry.target, entry.workspace, body);
      return { status: 200, body: { ok: true } };
    } catch (err) {
      if (err instanceof SlackApiError) return { status: 400, body: err.toBody() };
      throw err;
    }
  }

  private apply(target: ResponseUrlTarget, workspace: Workspace, body: ApiArgs): void {
    const original = target.messageTs
      ? workspace.getMessage(target.channel, target.messageTs, { includeEphemeral: true })
      : undefined;
    if (booleanArg(body, "delete_original")) {
      if (!original) throw new SlackApiError("message_not_found");
      workspace.deleteMessage(target.channel, original.ts);
      return;
    }
    const content = readMessageContent(body, {
      overlongText: { max: LIMITS.postMessageText, action: "truncate" },
    });
    if (booleanArg(body, "replace_original")) {
      if (!original) throw new SlackApiError("message_not_found");
      workspace.updateMessage(target.channel, original.ts, {
        text: content.text ?? "",
        blocks: content.blocks ?? [],
      });
      return;
    }
    const threadTs = stringArg(body, "thread_ts") ?? target.threadTs;
    const message = {
      channel: target.channel,
      text: content.text ?? "",
      user: workspace.bot.userId,
      botId: workspace.bot.botId,
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(threadTs ? { threadTs } : {}),
    };
    if (stringArg(body, "response_type") === "in_channel") workspace.post(message);
    else workspace.postEphemeral({ ...message, visibleTo: target.user });
  }
}
