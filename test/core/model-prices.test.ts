import { describe, expect, it } from "vitest";
import { callCost, parseModelPrices } from "../../src/core/model-prices.ts";

describe("model prices (HERMES_MODEL_PRICES)", () => {
  const parsed = parseModelPrices("gpt-4o-mini=0.15/0.6, gpt-4o=2.5/10, proxy=1/1");
  const prices = parsed.ok ? parsed.prices : {};
  const usage = { promptTokens: 1_000_000, completionTokens: 100_000 };

  it("prices a call by the model that answered, its dated name by the base name, before the configured one", () => {
    expect(callCost(prices, ["gpt-4o-mini"], usage)).toBeCloseTo(0.15 + 0.06, 10);
    // The longest base name wins: gpt-4o-mini-…, not gpt-4o.
    expect(callCost(prices, ["gpt-4o-mini-2024-07-18", "proxy"], usage)).toBeCloseTo(0.21, 10);
    expect(callCost(prices, ["gpt-4o-2024-08-06", "proxy"], usage)).toBeCloseTo(2.5 + 1, 10);
    // A server name with no price falls back to the configured name's.
    expect(callCost(prices, ["llama-3.1-8b", "proxy"], usage)).toBeCloseTo(1.1, 10);
  });

  it("no price: null (tokens only); no tokens: free", () => {
    expect(callCost(prices, ["llama-3.1-8b"], usage)).toBeNull();
    expect(callCost(prices, [], usage)).toBeNull();
    expect(callCost(prices, ["llama-3.1-8b"], { promptTokens: 0, completionTokens: 0 })).toBe(0);
  });

  it("a bad entry is named in the sentence", () => {
    expect(parseModelPrices("gpt-4o=cheap")).toEqual({
      ok: false,
      error: expect.stringContaining('"gpt-4o=cheap" is not'),
    });
  });
});
