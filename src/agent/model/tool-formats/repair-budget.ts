import { type LenientParse, MAX_REPAIR_CHARS, parseLenientJson } from "../../../core/lenient-json.ts";

/**
 * Characters handed to jsonrepair per message, across all its calls. One repair of MAX_REPAIR_CHARS
 * takes milliseconds, but a message may hold 64 calls and repair is superlinear on hostile text (runs
 * of quotes): past this budget, JSON that is not strictly valid is not repaired (strictly valid JSON
 * never draws on it). Broken call JSON is small; 8 KB of it in one message is plenty.
 */
export const REPAIR_BUDGET_CHARS = MAX_REPAIR_CHARS;

/** What is left of one message's repair budget; each format's parse takes a fresh one. */
export interface RepairBudget {
  chars: number;
}

/** A fresh budget, for one message. */
export function repairBudget(): RepairBudget {
  return { chars: REPAIR_BUDGET_CHARS };
}

/** parseLenientJson, but text that needs repair draws on the message's budget (refused once spent). */
export function parseJsonWithin(json: string, budget: RepairBudget): LenientParse {
  if (json.length <= MAX_REPAIR_CHARS) {
    try {
      JSON.parse(json);
    } catch {
      if (json.length > budget.chars)
        return { ok: false, error: "the repair budget of this message is spent" };
      budget.chars -= json.length;
    }
  }
  return parseLenientJson(json);
}
