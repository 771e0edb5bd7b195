/** USD per 1M tokens for one model: prompt (input) and completion (output). */
export interface ModelPrice {
  input: number;
  output: number;
}
export type ModelPrices = Record<string, ModelPrice>;

const ENTRY = /^([^=\s]+)\s*=\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)$/;

/**
 * Parses `HERMES_MODEL_PRICES`: comma-separated `model=input/output`, USD per 1M prompt/completion
 * tokens, e.g. `gpt-4o-mini=0.15/0.6,qwen2.5:7b=0/0`. Returns the prices, or the sentence saying
 * which entry is wrong.
 */
export function parseModelPrices(
  text: string,
): { ok: true; prices: ModelPrices } | { ok: false; error: string } {
  const prices: ModelPrices = {};
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const m = ENTRY.exec(entry);
    if (!m) {
      return {
        ok: false,
        error: `must be comma-separated model=input/output prices in USD per 1M tokens, e.g. gpt-4o-mini=0.15/0.6 ("${entry.slice(0, 80)}" is not)`,
      };
    }
    prices[m[1]!] = { input: Number(m[2]), output: Number(m[3]) };
  }
  return { ok: true, prices };
}

/** A model call's estimated cost in USD; null when the model has no configured price. */
export function callCost(
  prices: ModelPrices,
  model: string,
  usage: { promptTokens: number; completionTokens: number },
): number | null {
  const price = prices[model];
  if (!price) return null;
  return (usage.promptTokens * price.input + usage.completionTokens * price.output) / 1_000_000;
}
