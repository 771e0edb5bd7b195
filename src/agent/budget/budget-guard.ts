import { errorMessage, HermesError, isHermesError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import {
  countTokens,
  historyTokens,
  historyTokensUpperBound,
  specsTokens,
  specsTokensUpperBound,
} from "../context/token-count.ts";
import type { ChatModel, ModelResponse } from "../model/chat-model.ts";
import { stopMessage } from "../run/stop-messages.ts";
import { budgetChannel } from "./budget-channel.ts";
import type { BudgetRefusal, BudgetRequester, TokenBudget, TokenReservation } from "./token-budget.ts";

/** A model call the requester's or the channel's daily budget has no room for; the loop stops the run. */
export class BudgetExceededError extends HermesError {
  readonly refusal: BudgetRefusal;
  constructor(refusal: BudgetRefusal) {
    super("budget_exceeded", stopMessage("budget", { budget: refusal }));
    this.refusal = refusal;
  }
}

/**
 * The budgets could not be read (their database is down), so the call was not made: not a model
 * failure, so the loop ends the run with the storage sentence instead of trying the fallback model.
 */
export class BudgetUnavailableError extends HermesError {
  constructor(cause: unknown) {
    super(
      "storage_unavailable",
      isHermesError(cause, "storage_unavailable")
        ? cause.message
        : "Hermes could not reach its database (token budgets), so this was not done. Try again in a moment.",
      { cause },
    );
  }
}

/**
 * `model` whose every call is paid for from the daily budgets of one turn's requester and channel
 * (none for a DM: `budgetChannel`): before the call its worst case (the request's prompt tokens, or
 * an upper bound on them, plus the most it may write) is reserved in both, atomically, and the call is refused with
 * `BudgetExceededError` when either has no room (`BudgetUnavailableError` when the budgets cannot be
 * read); after it the reservation is settled with the tokens the server reports (an estimate when it
 * reports none; nothing when the call failed). Wrap only a real model: command mode's own answers
 * (`command-model.ts`) cost nothing, so the guard goes around its fallback (`model/models-for-run.ts`).
 */
export function guardBudget(
  model: ChatModel,
  o: {
    budget: TokenBudget;
    requester: BudgetRequester;
    logger: Logger;
    /** Where a settle goes once the call has answered: the run waits for it at its end, not each step. */
    settlements?: Settlements;
  },
): ChatModel {
  const channelId = budgetChannel(o.requester.channelId);
  const { channelTokensPerDay } = o.requester;
  const requester = {
    userId: o.requester.userId,
    channelId,
    ...(channelId && channelTokensPerDay !== undefined ? { channelTokensPerDay } : {}),
    ...(o.requester.teamId !== undefined ? { teamId: o.requester.teamId } : {}),
  };
  const settle = async (held: TokenReservation, used: number) => {
    try {
      await o.budget.settle(held, used);
    } catch (first) {
      // Once more (a dropped connection, a failover); then the answer stands and the reservation holds
      // until the day ends (fail safe: never under-counts). docs/architecture.md, "Token budgets".
      await o.budget
        .settle(held, used)
        .catch((err: unknown) =>
          o.logger.error(
            { err: errorMessage(err), first: errorMessage(first), ...requester, tokens: held.tokens },
            "could not settle a token reservation",
          ),
        );
    }
  };
  return {
    name: model.name,
    maxOutputTokens: model.maxOutputTokens,
    async complete(request) {
      const output = request.maxOutputTokens ?? model.maxOutputTokens;
      const reserve = (tokens: number) =>
        o.budget.reserve(requester, tokens).catch((err: unknown) => {
          throw new BudgetUnavailableError(err);
        });
      // The prompt's bytes bound its tokens, so holding them is safe and needs no tokenizer (~50 MB a
      // process never loads while its threads are short); only when that does not fit is the prompt
      // counted exactly and asked for again, so a call is refused only when its exact need has no room.
      const bound = historyTokensUpperBound(request.messages) + specsTokensUpperBound(request.tools);
      let exact: number | undefined;
      const prompt = () => (exact ??= historyTokens(request.messages) + specsTokens(request.tools));
      let held = await reserve(bound + output);
      if (!held.ok && prompt() < bound) held = await reserve(prompt() + output);
      if (!held.ok) throw new BudgetExceededError(held.refusal);
      let used = 0;
      let answered = false;
      try {
        const response = await model.complete(request);
        used = tokensUsed(response, prompt);
        answered = true;
        return response;
      } finally {
        const settled = settle(held.reservation, used);
        // The answer goes on at once and the settle is awaited when the run ends (`Settlements`);
        // until then the reservation holds the worst case, so a next call never sees too much room.
        if (answered && o.settlements) o.settlements.add(settled);
        else await settled;
      }
    },
  };
}

/** What a call cost: the server's prompt + completion tokens, else an estimate from what was sent and received. */
function tokensUsed(response: ModelResponse, promptEstimate: () => number): number {
  const u = response.usage;
  if (u.requests === 0) return 0; // answered without asking a model
  const reported = u.promptTokens + u.completionTokens || u.totalTokens;
  if (reported > 0) return reported;
  let completion = countTokens(response.content);
  for (const c of response.toolCalls) {
    // An oversize argument text was cut to a preview: count it at its length (≥ its tokens) instead.
    completion += countTokens(c.name) + (c.oversize ?? countTokens(c.arguments));
  }
  return promptEstimate() + completion;
}

/**
 * A run's settles still in flight. `add` takes one (it never rejects: `settle` logs what it could not
 * write); `flush` waits for all of them. A run flushes before it returns, so once `runTurn`, a resume
 * or a continuation has returned, everything its calls used is counted.
 */
export interface Settlements {
  add(settle: Promise<void>): void;
  flush(): Promise<void>;
}

export function createSettlements(): Settlements {
  const pending = new Set<Promise<void>>();
  return {
    add(settle) {
      pending.add(settle);
      void settle.finally(() => pending.delete(settle));
    },
    async flush() {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}
