/**
 * The Slack side of reading a file: what `files.info` says of it for this bot, and its bytes from
 * `url_private` with the bot token. `slack/slack-files.ts` implements it over the Web API.
 */
export interface SlackFileInfo {
  id: string;
  name: string;
  mimetype?: string;
  size: number;
  /** Where the bytes are, as Slack says for this bot (never taken from an event). */
  urlPrivate?: string;
  permalink?: string;
  /** The conversations (channels, private channels, DMs) it is shared in, as far as the bot can see. */
  sharedIn: string[];
}

export type SlackFileErrorCode =
  | "missing_scope"
  | "file_not_found"
  | "file_deleted"
  | "not_shared_here"
  | "host_refused"
  | "too_big"
  | "download_failed"
  | "sign_in_page";

/** Why a file could not be had from Slack; `sentence` says it to the person who shared it. */
export class SlackFileError extends Error {
  readonly code: SlackFileErrorCode;
  constructor(code: SlackFileErrorCode, detail?: string) {
    super(detail ? `${code}: ${detail}` : code);
    this.name = "SlackFileError";
    this.code = code;
  }
}

export interface SlackFiles {
  info(fileId: string, signal?: AbortSignal): Promise<SlackFileInfo>;
  /** The bytes at `url` (an allowed Slack file host only), at most `maxBytes` of them. */
  download(url: string, o: { maxBytes: number; signal?: AbortSignal }): Promise<Uint8Array>;
}

/** One sentence for a person: why Hermes could not read `name`, and what would fix it. */
export function slackFileSentence(name: string, err: unknown): string {
  const code = err instanceof SlackFileError ? err.code : "download_failed";
  switch (code) {
    case "missing_scope":
      return `I can't read "${name}": this Slack app lacks the files:read permission. An admin needs to add that scope and reinstall the app.`;
    case "file_not_found":
    case "file_deleted":
      return `I can't see "${name}": Slack says it does not exist any more or is not shared where I am.`;
    case "not_shared_here":
      return `I didn't read "${name}": it is not shared in this conversation, so I only read files posted here.`;
    case "host_refused":
      return `I didn't read "${name}": Slack named a download address outside its own file hosts.`;
    case "too_big":
      return `"${name}" is larger than I read; share a smaller file or an excerpt.`;
    case "sign_in_page":
      return `I can't read "${name}": Slack answered with a sign-in page instead of the file, which usually means the app lacks the files:read permission.`;
    default:
      return `I couldn't download "${name}" from Slack just now; try sharing it again.`;
  }
}
