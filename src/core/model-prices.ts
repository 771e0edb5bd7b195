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

/**
 * A model call's estimated cost in USD; null when no configured price applies. The price is the
 * one of the first name listed in `models` that has one (the model as the server named it, then as
 * configured); a server's dated name (`gpt-4o-mini-2024-07-18`) has its base name's price, so the
 * model that answered is priced even when the configured name has a price too. A call that used no
 * tokens costs nothing.
 */
export function callCost(
  prices: ModelPrices,
  models: string[],
  usage: { promptTokens: number; completionTokens: number },
): number | null {
  if (usage.promptTokens === 0 && usage.completionTokens === 0) return 0;
  const price = priceOf(prices, models);
  if (!price) return null;
  return (usage.promptTokens * price.input + usage.completionTokens * price.output) / 1_000_000;
}

/** The first name's price, its dated form included, before the next name is tried. */
function priceOf(prices: ModelPrices, models: string[]): ModelPrice | undefined {
  for (const m of models) {
    if (Object.hasOwn(prices, m)) return prices[m];
    const base = Object.keys(prices)
      .filter((k) => m.startsWith(`${k}-`))
      .sort((a, b) => b.length - a.length)[0];
    if (base) return prices[base];
  }
  return undefined;
}
