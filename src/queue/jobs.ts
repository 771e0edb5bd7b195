import { z } from "zod";
import { MAX_FILES_PER_MESSAGE, slackFileRefSchema } from "../files/intake/file-refs.ts";

const id = z.string().min(1);

/**
 * What the receiver adds to a turn job about how the turn began. Checked with the rest of the job as
 * it enters a queue and again as a worker takes it, so neither side casts; keys it does not name are
 * kept (room for what later callers need without a schema change).
 */
export const turnJobMetaSchema = z.looseObject({
  /** The "working…" message the answer replaces. */
  placeholderTs: z.string().optional(),
  /** The message was written inside an existing thread: its earlier messages are quoted to the model. */
  inThread: z.boolean().optional(),
  /** From an assistant thread: its status line shows progress instead of a working message. */
  assistantThread: z.boolean().optional(),
  /** Context Slack gave (e.g. the channel the user is viewing), already fenced as untrusted data. */
  untrustedContext: z.string().optional(),
  /** The channel the user is viewing beside an assistant thread, for tools (untrusted: a hint only). */
  viewing: z.object({ channelId: id, teamId: id.optional() }).optional(),
  /** Files shared with the message, by reference: read by the worker (`files.info`, then the bytes). */
  files: z.array(slackFileRefSchema).max(MAX_FILES_PER_MESSAGE).optional(),
  /** The W3C trace context of the event's span (when tracing is on): the worker's run span continues it. */
  traceparent: z.string().max(128).optional(),
});

/** A Slack message (mention or DM) to answer: one agent turn in the thread `sessionKey`. */
export const turnJobSchema = z.object({
  type: z.literal("turn"),
  sessionKey: id,
  teamId: id,
  channelId: id,
  threadTs: id,
  userId: id,
  text: z.string(),
  eventId: id,
  messageTs: id,
  isDm: z.boolean(),
  meta: turnJobMetaSchema.optional(),
});

/** Continue a paused run after its approval was decided or expired (the decision lives in Postgres). */
export const resumeJobSchema = z.object({
  type: z.literal("resume"),
  runId: id,
  approvalId: id.optional(),
  reason: z.enum(["decided", "expired"]),
});

export const queueJobSchema = z.discriminatedUnion("type", [turnJobSchema, resumeJobSchema]);

export type QueueJob = z.infer<typeof queueJobSchema>;

/** The queue id of a Slack event's turn: every producer uses it, so the turn is queued once. */
export const turnJobId = (eventId: string) => `turn:${eventId}`;
/** What may resume a run, besides each of its approvals (by approval id). */
export const RESUME_CAUSES = ["recover", "cancel"] as const;
/** The queue id of a run's resume by one of its approvals (its id) or a `RESUME_CAUSES` cause. */
export const resumeJobId = (runId: string, by: string) => `resume:${runId}:${by}`;
export type QueueJobType = QueueJob["type"];
export type TurnJob = z.infer<typeof turnJobSchema>;
export type TurnJobMeta = z.infer<typeof turnJobMetaSchema>;
export type ResumeJob = z.infer<typeof resumeJobSchema>;

/**
 * How many times a job may run when its handler throws. Only jobs whose handlers are idempotent retry:
 * `resume` decides in Postgres (a run resumes once), so a second attempt after a crash or a transient
 * error is safe. A `turn` never retries here: a second run could
 * repeat side effects (messages, tickets); whether a turn runs again is the event dedupe layer's call.
 */
export const JOB_ATTEMPTS: Readonly<Record<QueueJobType, number>> = { turn: 1, resume: 2 };

export type ParsedQueueJob = { ok: true; job: QueueJob } | { ok: false; issues: string };

/** Validates data that came off a queue (or is about to go on one); never throws. */
export function parseQueueJob(data: unknown): ParsedQueueJob {
  const parsed = queueJobSchema.safeParse(data);
  if (parsed.success) return { ok: true, job: parsed.data };
  return { ok: false, issues: z.prettifyError(parsed.error) };
}

/** The fields that identify a job in logs: ids only, never the message text. */
export function jobLogFields(job: QueueJob): Record<string, string> {
  switch (job.type) {
    case "turn":
      return { jobType: job.type, sessionKey: job.sessionKey, eventId: job.eventId };
    case "resume":
      return {
        jobType: job.type,
        runId: job.runId,
        ...(job.approvalId ? { approvalId: job.approvalId } : {}),
      };
  }
}
