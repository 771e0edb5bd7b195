/** Who is running the turn, and where: what tools and policy may know about the caller. */
export interface RunIdentity {
  runId: string;
  sessionKey: string;
  userId: string;
  teamId?: string;
  channelId?: string;
  threadTs?: string;
  /** IANA time zone of the requester (Slack profile), when known. */
  timezone?: string;
  /** Asked in a Slack assistant thread: a resume shows progress in its status line, as the turn did. */
  assistantThread?: boolean;
  /**
   * UNTRUSTED: the channel the requester is viewing beside the assistant thread, as Slack's client
   * reports it (`assistant_thread_context_changed`). It says what "here" may mean, never what the
   * requester may do: a tool that uses it checks access as for any channel the requester names.
   */
  viewing?: ViewedChannel;
  /**
   * Files people shared in this conversation that Hermes read for this turn (this message's, and
   * earlier ones of the thread): references only, never the bytes. A tool may attach them to what it
   * makes (a ticket) by id.
   */
  files?: ThreadFile[];
}

/** A Slack file by reference: what a ticket keeps of an attachment, and what the audit row names. */
export interface ThreadFile {
  /** Slack's file id (`F…`). */
  id: string;
  name: string;
  /** The type sniffed from the bytes (not the name's), e.g. `application/pdf`. */
  mime: string;
  size: number;
  /** Of the bytes Hermes downloaded. */
  sha256: string;
  /** Slack's permalink to the file, for a person to open it. */
  permalink?: string;
}

/** A channel the client says the requester is viewing: ids only, checked for their shape. */
export interface ViewedChannel {
  channelId: string;
  teamId?: string;
}
