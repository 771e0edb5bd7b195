import { expect } from "vitest";
import type { Delivery } from "../../src/sandbox/events-sender.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { blocksText, buttonsOf } from "./bolt-app.ts";
import { type TestHermes, waitFor } from "./hermes-harness.ts";

/** The bot's replies in a thread (the parent left out). */
export const botReplies = (t: TestHermes, channel: string, ts: string): SandboxMessage[] =>
  (t.thread(channel, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);

/**
 * The bot's replies once the turn's working message is gone: the answer is posted first and the
 * working message removed after it, so for a moment both are in the thread.
 */
export const settledReplies = (t: TestHermes, channel: string, ts: string): Promise<SandboxMessage[]> =>
  waitFor(
    () => {
      const replies = botReplies(t, channel, ts);
      return replies.every((m) => !m.text.includes("Working on it")) ? replies : undefined;
    },
    30_000,
    "the working message removed",
  );

/** Runs `/hermes text` as `user` in `channel`; resolves with the text of the ephemeral answer it gets. */
export async function commandReply(
  t: TestHermes,
  user: string,
  text: string,
  channel: string,
): Promise<string> {
  const before = t.ws.ephemeralMessages(channel, user).length;
  const d = await t.sender.slashCommand({ user, channel, text });
  expect(d.status).toBe(200);
  const m = await waitFor(() => t.ws.ephemeralMessages(channel, user)[before], 30_000, `/hermes ${text}`);
  return `${m.text}\n${blocksText(m.blocks)}`;
}

/** A message's fallback text and all the text of its blocks. */
export const messageText = (m: SandboxMessage): string => `${m.text}\n${blocksText(m.blocks)}`;

/** The approval cards (messages with buttons) the bot posted in a thread. */
export const cardsIn = (t: TestHermes, channel: string, ts: string): SandboxMessage[] =>
  botReplies(t, channel, ts).filter((m) => buttonsOf(m.blocks).length > 0);

/** The approval id a card's buttons carry. */
export const approvalIdOf = (card: SandboxMessage): string => buttonsOf(card.blocks)[0]?.value ?? "";

/** Everything the app sent to the Slack Web API (messages, cards, updates, ephemerals), as text. */
export const slackTraffic = (t: TestHermes): string => JSON.stringify(t.emulator.calls.map((c) => c.args));

/** Sends a request Slack already delivered again, byte for byte: same body, same signature and timestamp. */
export async function replayExactly(t: TestHermes, previous: Delivery): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${t.hermes.port}/slack/events`, {
    method: "POST",
    headers: previous.request.headers,
    body: previous.request.body,
  });
  await r.text();
  return r.status;
}
