import type { types } from "@slack/bolt";
import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { TurnResult } from "../agent/run/runtime-types.ts";
import type { Logger } from "../core/logger.ts";
import type { Approval } from "../policy/approval-store.ts";
import type { ReplyTarget } from "../queue/turn-output.ts";
import type { Storage } from "../storage.ts";
import { fallbackText, planAnswer, type SlackMessagePayload } from "./answer-blocks.ts";
import { approvalCard } from "./approval-card.ts";
import { feedbackBlock } from "./feedback-block.ts";
import { asPaced } from "./rate-limit/paced-web-client.ts";
import { runMetadata } from "./run-metadata.ts";
import type { SlackOutput } from "./slack-output.ts";
import { ticketEntitiesOf } from "./work-objects/result-tickets.ts";
import type { TicketLinks } from "./work-objects/ticket-links.ts";

/** What rendering and updating an approval card needs: the tool's flags and the redactor. */
export type CardRendering = Pick<AgentRuntime, "registry"> & Pick<SlackOutput, "redactor">;

/** What updating a decided card in place needs. */
export type CardUpdates = CardRendering & Pick<SlackOutput, "client"> & { logger: Logger };

/**
 * What posting answers needs; with `ticketLinks`, an answer carries the tickets its run touched as
 * Work Objects (`work-objects/`).
 */
export type AnswerPosting = Pick<SlackOutput, "client" | "slack" | "redactor"> & {
  logger: Logger;
  ticketLinks?: TicketLinks;
};

/** Message metadata: the run's event metadata and, for Work Objects, entities. */
type AnswerMetadata = types.MessageMetadata & { entities?: types.EntityMetadata[] };

/** What posting a paused run's cards needs (each card's ts is stored on its approval). */
type PausePosting = CardUpdates & Pick<Storage, "approvals">;

/** A pause's line waits this long at most for its budget to replace the working message. */
const REPLACE_WAIT_MS = 2_000;

/**
 * Replaces the working message in place when that is about as quick as a new reply: only for lines
 * that stand in for it (a pause's), never for an answer, which is always a new message (Slack marks
 * an updated message "(edited)"). `chat.update` is one budget for the whole workspace (Slack's tier 3,
 * ~50/min) while replies are paced per channel, so when that budget is busy, or a 429 pauses it, the
 * caller posts a new reply instead of waiting. The update never waits out a 429.
 */
async function replacePlaceholder(
  s: Pick<SlackOutput, "client">,
  target: ReplyTarget,
  m: SlackMessagePayload,
): Promise<boolean> {
  if (!target.placeholderTs) return false;
  const args = { channel: target.channel, ts: target.placeholderTs, text: m.text, blocks: m.blocks };
  const paced = asPaced(s.client);
  // Worth waiting for up to as long as a new reply would wait anyway (a couple of seconds at least).
  const maxWaitMs = paced ? Math.max(REPLACE_WAIT_MS, paced.expectedWaitMs("chat.postMessage", args)) : 0;
  if (paced && paced.expectedWaitMs("chat.update", args) > maxWaitMs) return false;
  try {
    await (paced
      ? paced.callOnce("chat.update", args, { maxWaitMs })
      : s.client.chat.update(args as Parameters<typeof s.client.chat.update>[0]));
    return true;
  } catch {
    return false;
  }
}

/**
 * The working message is removed once the answer is up below it (`chat.delete` is a budget of its
 * own, and the answer never waits for it); failing that, it stays, which is only untidy.
 */
function removePlaceholder(s: Pick<SlackOutput, "client"> & { logger: Logger }, target: ReplyTarget): void {
  if (!target.placeholderTs) return;
  s.client.chat
    .delete({ channel: target.channel, ts: target.placeholderTs })
    .catch((err: unknown) =>
      s.logger.debug({ err: String(err), channel: target.channel }, "working message not removed"),
    );
}

/**
 * Shows a finished turn in its thread: the answer is posted as new replies and the working message
 * removed; a failure shows one short sentence with the run id, never a stack. Either names its
 * run in the message metadata.
 */
export async function showResult(s: AnswerPosting, result: TurnResult, target: ReplyTarget): Promise<void> {
  await postAnswer(s, resultMarkdown(result), target, resultOptions(s, result));
}

/** How a finished turn's answer is posted: rated or not (`ratedBy`), with the tickets it touched as Work Objects. */
export function resultOptions(s: Pick<AnswerPosting, "ticketLinks">, result: TurnResult): AnswerOptions {
  const entities = s.ticketLinks ? ticketEntitiesOf(result.messages, s.ticketLinks) : [];
  return { ...ratedBy(result), ...(entities.length ? { entities } : {}) };
}

/**
 * What a finished turn's message says about its run: it names the run (metadata), and only an
 * answer is rated: a failure or stop sentence, a card or a command answer carries no 👍/👎.
 */
export function ratedBy(result: TurnResult): AnswerOptions {
  return result.status === "completed"
    ? { runId: result.runId, feedbackRunId: result.runId }
    : { runId: result.runId };
}

/**
 * `runId`: the run the message belongs to, named in its last message's metadata (the sandbox page's
 * "View run"); `feedbackRunId`: a completed run's answer, which ends with the 👍/👎 rating it.
 */
export interface AnswerOptions {
  runId?: string;
  feedbackRunId?: string;
  /** Work Objects (e.g. the tickets the run touched) on the last message, beside the run's metadata. */
  entities?: types.EntityMetadata[];
}

/** What a finished turn shows (Markdown): its answer, or its failure with the run id; the fallback note. */
export function resultMarkdown(result: TurnResult): string {
  const text =
    result.status === "failed"
      ? `:warning: ${result.answer}\n_Reference: run \`${result.runId}\`_`
      : result.answer;
  return text + fallbackNote(result);
}

/** Says under the answer that the fallback model wrote it, and why (the history keeps the answer alone). */
function fallbackNote(result: TurnResult): string {
  const f = result.fallback;
  if (!f) return "";
  const why =
    f.reason === "primary_unavailable" ? "was not answering" : "wrote tool calls Hermes could not read";
  return `\n\n_Answered with the fallback model \`${f.model}\`: the primary model ${why}._`;
}

/**
 * Posts Markdown as the answer: new replies in the thread (never an update, which Slack would mark
 * "(edited)"), then the working message is removed; a huge answer becomes a file.
 * Credentials are cut out first (configured secret values, tokens, keys): a model that read one in a
 * tool result, or was told to repeat one, cannot post it. Personal data the requester asked for stays.
 * With `feedbackRunId`, the last message ends with the 👍/👎 buttons rating that run; with `runId`
 * (or `feedbackRunId`), the last message's metadata names the run.
 */
export async function postAnswer(
  s: AnswerPosting,
  markdown: string,
  target: ReplyTarget,
  options: AnswerOptions = {},
): Promise<void> {
  const plan = planAnswer(s.redactor.redactSecrets(markdown));
  const planned = plan.kind === "messages" ? plan.messages : [plan.summary];
  const messages = options.feedbackRunId ? withFeedback(planned, options.feedbackRunId) : planned;
  const runId = options.runId ?? options.feedbackRunId;
  for (const [i, part] of messages.entries()) {
    const m =
      runId && i === messages.length - 1 ? { ...part, metadata: answerMetadata(runId, options) } : part;
    await s.client.chat.postMessage({
      channel: target.channel,
      thread_ts: target.threadTs,
      text: m.text,
      blocks: m.blocks,
      ...("metadata" in m ? { metadata: m.metadata } : {}),
      unfurl_links: false,
      unfurl_media: false,
    });
    if (i === 0) removePlaceholder(s, target);
  }
  if (plan.kind === "file") {
    await s.slack.uploadFile({
      channel: target.channel,
      threadTs: target.threadTs,
      filename: plan.filename,
      content: plan.content,
    });
  }
}

export function answerMetadata(runId: string, options: AnswerOptions): AnswerMetadata {
  return options.entities?.length
    ? { ...runMetadata(runId), entities: options.entities }
    : runMetadata(runId);
}

/** The 👍/👎 block appended to the last message (plans stay within 49 blocks, so 50 at most). */
function withFeedback(messages: SlackMessagePayload[], runId: string): SlackMessagePayload[] {
  return messages.map((m, i) =>
    i === messages.length - 1 ? { ...m, blocks: [...m.blocks, feedbackBlock(runId)] } : m,
  );
}

/**
 * A paused run's approvals (stored with its snapshot by the worker): the pause's line replaces the
 * working message, then one card per pending call, its metadata naming the run. The line says what
 * was asked, never a state that goes stale: each card shows its own state and is updated in place
 * when it is decided, expires or is cancelled.
 */
export async function showPause(s: PausePosting, created: Approval[], target: ReplyTarget): Promise<void> {
  const waiting = pauseLine(created);
  if (!(await replacePlaceholder(s, target, { text: waiting, blocks: [] }))) {
    await s.client.chat.postMessage({ channel: target.channel, thread_ts: target.threadTs, text: waiting });
    removePlaceholder(s, target);
  }
  for (const a of created) await postCard(s, a, target);
}

/** ":raised_hand: I asked for approval to run `send_message`: the card below shows the decision." */
export function pauseLine(created: readonly Pick<Approval, "tool">[]): string {
  const names = [...new Set(created.map((a) => `\`${a.tool}\``))].join(", ");
  const cards =
    created.length > 1 ? "the cards below show the decisions" : "the card below shows the decision";
  return `:raised_hand: I asked for approval to run ${names}: ${cards}.`;
}

async function postCard(s: PausePosting, a: Approval, target: ReplyTarget): Promise<void> {
  const card = approvalCard(toCardApproval(s, a), { kind: "pending" });
  try {
    const posted = await s.client.chat.postMessage({
      channel: target.channel,
      thread_ts: target.threadTs,
      text: card.text,
      blocks: card.blocks,
      ...(a.runId ? { metadata: runMetadata(a.runId) } : {}),
      unfurl_links: false,
      unfurl_media: false,
    });
    if (posted.ts) await s.approvals.setCard(a.id, { channel: target.channel, ts: posted.ts });
  } catch (err) {
    // The approval stays pending and expires on its own; the requester can list it with /hermes approvals.
    s.logger.error(
      { err: String(err), approvalId: a.id, runId: a.runId },
      "could not post the approval card",
    );
  }
}

/**
 * What the card shows for a stored approval (the registry says whether the tool is dangerous). The
 * arguments are shown with credentials cut out: a call that would post a secret shows `[secret]`
 * where it is, so the approver sees that it carries one without the card leaking it.
 */
export function toCardApproval(s: CardRendering, a: Approval) {
  return {
    id: a.id,
    tool: a.tool,
    args: s.redactor.redactSecretsDeep(a.args),
    argsSha256: a.argsSha256,
    requesterId: a.requesterId,
    expiresAt: a.expiresAt,
    dangerous: s.registry.get(a.tool)?.dangerous ?? false,
  };
}

/** Updates a card in place to its decided state (buttons gone, who and when, optional outcome). */
export async function updateCard(s: CardUpdates, a: Approval, outcome?: string): Promise<void> {
  if (!a.cardChannel || !a.cardTs || a.status === "pending") return;
  const card = approvalCard(toCardApproval(s, a), {
    kind: "decided",
    status: a.status,
    by: a.decidedBy ?? undefined,
    at: a.decidedAt ?? new Date(),
    outcome: outcome === undefined ? undefined : s.redactor.redactSecrets(outcome),
  });
  try {
    await s.client.chat.update({
      channel: a.cardChannel,
      ts: a.cardTs,
      text: fallbackText(card.text),
      blocks: card.blocks,
      ...(a.runId ? { metadata: runMetadata(a.runId) } : {}),
    });
  } catch (err) {
    s.logger.warn({ err: String(err), approvalId: a.id }, "could not update the approval card");
  }
}
