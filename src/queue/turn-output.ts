import type { TurnResult } from "../agent/run/runtime-types.ts";
import type { TraceEvent } from "../agent/run/trace.ts";
import type { Logger } from "../core/logger.ts";
import type { SlackFileRef } from "../files/intake/file-refs.ts";
import type { SlackFiles } from "../files/intake/slack-files.ts";
import type { Approval } from "../policy/approval-store.ts";

/** Where a turn's answer goes: its thread, below the "working…" message (removed then) when there is one. */
export interface ReplyTarget {
  channel: string;
  threadTs: string;
  /** The "working…" message the answer is posted below and that is then removed (when one went out). */
  placeholderTs?: string | undefined;
}

/** A turn's "working…" message, showing what the run is doing now. */
export interface ProgressDisplay {
  show(event: TraceEvent): void;
  /** Waits for (or drops) a pending update, so it cannot land after the answer. */
  close(): Promise<void>;
  /** After `close`: the working message the answer removes, when one went out (and is still there). */
  workingTs?(): string | undefined;
  /** Closes it and removes the working message: the job had nothing to show (a duplicate). Never throws. */
  discard?(): Promise<void>;
}

/** An assistant thread's status line ("is running create_ticket…"), shown instead of a working message. */
export interface StatusDisplay extends ProgressDisplay {
  /** Clears the line (Slack clears it on a reply; this covers the paths with none). Never throws. */
  clear(): Promise<void>;
}

/**
 * What a worker shows people while and after it runs a job: the one port between the queue's workers
 * and Slack. `slack/turn-output.ts` implements it over the Web API; `boot/start-hermes.ts` wires it.
 */
export interface TurnOutput {
  /**
   * The run's working message in its thread, showing its progress: posted as the run starts, best
   * effort (it never delays the run, and in a busy channel it may never go out), or the message `ts`
   * already posted. With the requester the answer may stream instead (chat.startStream).
   */
  progress(o: {
    channel: string;
    threadTs: string;
    logger: Logger;
    /** A working message already posted (a schedule's). */
    ts?: string | undefined;
    /** The first line shown (default "Working on it…"). */
    text?: string;
    requester?: { userId: string; teamId?: string | undefined };
  }): ProgressDisplay;
  /**
   * The status line of an assistant thread, for a job whose listener says it came from one. With the
   * requester, the answer may also stream into the thread (chat.startStream) beside the line.
   */
  assistantStatus?(o: {
    channel: string;
    threadTs: string;
    logger: Logger;
    requester?: { userId: string; teamId?: string | undefined };
  }): StatusDisplay;
  /** The requester's time zone, when Slack knows it (undefined on any failure). */
  requesterTimezone(userId: string): Promise<string | undefined>;
  /**
   * A turn started inside an existing thread: its earlier messages, quoted as untrusted data, and the
   * files shared in them (by reference).
   */
  threadContext(o: {
    channel: string;
    threadTs: string;
    currentTs: string;
    logger: Logger;
  }): Promise<{ quoted: string | undefined; files: SlackFileRef[] }>;
  /** Files shared with a turn, on Slack's side (`files.info`, the bytes); absent where nothing can be read. */
  files?: SlackFiles;
  /** Posts a short notice in the turn's thread (files not read, and why); never replaces the working message. */
  postNotice(text: string, target: ReplyTarget): Promise<void>;
  /**
   * Posts Markdown as the answer (credentials cut out), then removes the working message. With `runId`
   * its last message names that run (Slack message metadata); with `feedbackRunId` (a completed
   * run's answer) it ends with the 👍/👎 buttons rating that run, and names it too.
   */
  postAnswer(
    markdown: string,
    target: ReplyTarget,
    options?: { runId?: string; feedbackRunId?: string },
  ): Promise<void>;
  /** A finished (not paused) run's answer, or its failure or stop sentence, with the fallback note; both name the run. */
  showResult(result: TurnResult, target: ReplyTarget): Promise<void>;
  /** A paused run's approvals, already stored: the waiting line, then one card per approval (naming the run). */
  showPause(approvals: Approval[], target: ReplyTarget): Promise<void>;
  /** Updates a decided approval's card in place (never throws; failures are logged). */
  updateCard(approval: Approval, outcome?: string): Promise<void>;
  /** Tells a thread that a call was interrupted by a restart (throws when the post fails). */
  tellInterrupted(call: { channel: string; threadTs: string; tool: string; runId: string }): Promise<void>;
}
