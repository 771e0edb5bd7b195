import { errorMessage, HermesError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { ChatModel, ModelResponse } from "./chat-model.ts";
import { stopMessage } from "./stop-messages.ts";
import type { BudgetRefusal, BudgetRequester, TokenBudget } from "./token-budget.ts";
import { countTokens, historyTokens, specsTokens } from "./token-count.ts";

/** A model call the requester's or the channel's daily budget has no room for; the loop stops the run. */
export class BudgetExceededError extends HermesError {
  readonly refusal: BudgetRefusal;
  constructor(refusal: BudgetRefusal) {
    super("budget_exceeded", stopMessage("budget", { budget: refusal }));
    this.refusal = refusal;
  }
}

/**
 * `model` whose every call is paid for from the daily budgets of one turn's requester and channel:
 * before the call its worst case (the request's prompt tokens plus the most it may write) is reserved
 * in both, atomically, and the call is refused with `BudgetExceededError` when either has no room;
 * after it the reservation is settled with the tokens the server reports (an estimate when it reports
 * none; nothing when the call failed or no model was asked, as in command mode).
 */
export function guardBudget(
  model: ChatModel,
  o: { budget: TokenBudget; requester: BudgetRequester; logger: Logger },
): ChatModel {
  return {
    name: model.name,
    maxOutputTokens: model.maxOutputTokens,
    async complete(request) {
      const prompt = historyTokens(request.messages) + specsTokens(request.tools);
      const worstCase = prompt + (request.maxOutputTokens ?? model.maxOutputTokens);
      const held = await o.budget.reserve(o.requester, worstCase);
      if (!held.ok) throw new BudgetExceededError(held.refusal);
      let used = 0;
      try {
        const response = await model.complete(request);
        used = tokensUsed(response, prompt);
        return response;
      } finally {
        await o.budget.settle(held.reservation, used).catch((err: unknown) =>
          // The answer stands; the reservation then holds until the day ends (fail safe: never under-counts).
          o.logger.error(
            { err: errorMessage(err), userId: o.requester.userId, channelId: o.requester.channelId },
            "could not settle a token reservation",
          ),
        );
      }
    },
  };
}

/** What a call cost: the server's prompt + completion tokens, else an estimate from what was sent and received. */
function tokensUsed(response: ModelResponse, promptEstimate: number): number {
  const u = response.usage;
  if (u.requests === 0) return 0; // answered without asking a model (command mode)
  const reported = u.promptTokens + u.completionTokens || u.totalTokens;
  if (reported > 0) return reported;
  let completion = countTokens(response.content);
  for (const c of response.toolCalls) completion += countTokens(c.name) + countTokens(c.arguments);
  return promptEstimate + completion;
}
