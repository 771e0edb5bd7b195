import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.ts";
import {
  formatTokens,
  parseTokenAmount,
  readTokenAmount,
  shortTokens,
} from "../../../src/core/token-amount.ts";
import { parseBudgetCommand } from "../../../src/slack/commands/parse-budget-command.ts";
import { parseHermesCommand } from "../../../src/slack/commands/parse-hermes-command.ts";

describe("token amounts", () => {
  it("reads plain counts, underscores by threes, k and m (any case) with whole results; refuses anything else", () => {
    expect(parseTokenAmount("200000")).toBe(200_000);
    expect(parseTokenAmount("200_000")).toBe(200_000);
    expect(parseTokenAmount("1_500_000")).toBe(1_500_000);
    expect(parseTokenAmount("200k")).toBe(200_000);
    expect(parseTokenAmount(" 1.5m ")).toBe(1_500_000);
    expect(parseTokenAmount("1m")).toBe(1_000_000);
    expect(parseTokenAmount("2M")).toBe(2_000_000);
    expect(parseTokenAmount("0.5k")).toBe(500);
    expect(parseTokenAmount("1.234k")).toBe(1234);
    expect(parseTokenAmount("1.5000k")).toBe(1500);
    expect(parseTokenAmount("0")).toBe(0);
    for (const bad of [
      "",
      "k",
      "-5",
      "+5",
      "1.5g",
      "lots",
      "1e6",
      "200 000",
      "0.4",
      "1,5m",
      "1,500",
      "1,000,000",
    ])
      expect(parseTokenAmount(bad), bad).toBeUndefined();
    for (const bad of ["1.2345k", "1.0000001m", "2_00", "20_0000", "_200", "200_", ".5m", "1.m"])
      expect(parseTokenAmount(bad), bad).toBeUndefined();
  });

  it("says why an amount that looks like one is refused, with an example", () => {
    const problem = (text: string) => {
      const read = readTokenAmount(text);
      return read.ok ? `read ${read.tokens}` : read.problem;
    };
    expect(problem("0.4")).toBe(
      "it is not a whole number of tokens: write a whole count, e.g. 400000, 400k or 0.4m",
    );
    expect(problem("1,5m")).toBe(
      "a comma could be a decimal point or a thousands separator: write 1.5m, 1500000 or 1_500_000",
    );
    expect(problem("1,500")).toBe(problem("1,5m"));
    expect(problem("-5")).toBe("a token amount has no sign: write 0 or more, e.g. 200k");
    expect(problem("1e6")).toBe("write 1m or 1000000 instead of scientific notation");
    expect(problem("1.2345k")).toBe(
      "it is not a whole number of tokens: use at most 3 decimals with k, e.g. 1.5k",
    );
    expect(problem("2_00")).toBe("underscores group digits by three, e.g. 200_000");
    expect(problem("99999999999999999")).toBe("it is too large to count, e.g. 1000m");
    expect(problem("lots")).toBeUndefined();
  });

  it("every short form Hermes suggests reads back as the same amount", () => {
    for (const n of [1, 999, 1000, 1500, 12_300, 200_000, 1_250_000, 1_500_000, 20_000_000])
      expect(parseTokenAmount(shortTokens(n))).toBe(n);
  });

  it("shows amounts with separators, and in the short form a command takes", () => {
    expect(formatTokens(1_234_567)).toBe("1,234,567");
    expect(shortTokens(200_000)).toBe("200k");
    expect(shortTokens(1_500_000)).toBe("1.5m");
    expect(shortTokens(12_345)).toBe("12345");
  });

  it("the two budget variables take the same forms; unset is 0 (no limit); a bad one names itself", () => {
    const c = loadConfig({
      HERMES_BUDGET_USER_TOKENS_PER_DAY: "200k",
      HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY: "1.5m",
    });
    expect(c.env.HERMES_BUDGET_USER_TOKENS_PER_DAY).toBe(200_000);
    expect(c.env.HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY).toBe(1_500_000);
    expect(loadConfig({}).env.HERMES_BUDGET_USER_TOKENS_PER_DAY).toBe(0);
    expect(() => loadConfig({ HERMES_BUDGET_USER_TOKENS_PER_DAY: "plenty" })).toThrow(
      /HERMES_BUDGET_USER_TOKENS_PER_DAY must be a token count such as 200000, 200k or 1\.5m \(0 = no limit\) \(got "plenty"\)/,
    );
  });

  it("config refuses what is not an unambiguous amount, naming the variable, the reason and an example", () => {
    expect(
      loadConfig({ HERMES_BUDGET_USER_TOKENS_PER_DAY: "200_000" }).env.HERMES_BUDGET_USER_TOKENS_PER_DAY,
    ).toBe(200_000);
    expect(
      loadConfig({ HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY: "0" }).env.HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY,
    ).toBe(0);
    const refused: Array<[string, RegExp]> = [
      [
        "0.4",
        /it is not a whole number of tokens: write a whole count, e\.g\. 400000, 400k or 0\.4m \(got "0\.4"\)/,
      ],
      [
        "1,5m",
        /a comma could be a decimal point or a thousands separator: write 1\.5m, 1500000 or 1_500_000 \(got "1,5m"\)/,
      ],
      ["1,500", /a comma could be a decimal point or a thousands separator/],
      ["-5", /a token amount has no sign: write 0 or more, e\.g\. 200k \(got "-5"\)/],
      ["1e6", /write 1m or 1000000 instead of scientific notation/],
      ["1.2345k", /it is not a whole number of tokens: use at most 3 decimals with k/],
    ];
    for (const [value, message] of refused) {
      for (const name of ["HERMES_BUDGET_USER_TOKENS_PER_DAY", "HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY"]) {
        expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(
          new RegExp(
            `${name} must be a token count such as 200000, 200k or 1\\.5m \\(0 = no limit\\): ${message.source}`,
          ),
        );
      }
    }
    // The model's output cap and the context budget take the same forms, within their ranges.
    const c = loadConfig({ HERMES_MODEL_MAX_TOKENS: "4k", HERMES_CONTEXT_BUDGET_TOKENS: "32_000" });
    expect([c.env.HERMES_MODEL_MAX_TOKENS, c.env.HERMES_CONTEXT_BUDGET_TOKENS]).toEqual([4000, 32_000]);
    expect(() => loadConfig({ HERMES_MODEL_MAX_TOKENS: "1e3" })).toThrow(
      /HERMES_MODEL_MAX_TOKENS must be a whole number of tokens from 16 to 200000, e\.g\. 1024 or 4k: write 1m or 1000000 instead of scientific notation \(got "1e3"\)/,
    );
    expect(() => loadConfig({ HERMES_CONTEXT_BUDGET_TOKENS: "0.4" })).toThrow(
      /HERMES_CONTEXT_BUDGET_TOKENS must be a whole number of tokens from 1000 to 2000000, e\.g\. 8000 or 32k: it is not a whole number/,
    );
    expect(() => loadConfig({ HERMES_MODEL_MAX_TOKENS: "0" })).toThrow(
      /HERMES_MODEL_MAX_TOKENS must be a whole number of tokens from 16/,
    );
  });
});

describe("/hermes budget and usage", () => {
  it("are subcommands of /hermes", () => {
    expect(parseHermesCommand("budget <@U0A> 200k")).toEqual({ kind: "budget", args: "<@U0A> 200k" });
    expect(parseHermesCommand("budget")).toEqual({ kind: "budget", args: "" });
    expect(parseHermesCommand("usage")).toEqual({ kind: "usage" });
  });

  it("reads a user or channel mention (or id) and an amount; off and default clear", () => {
    expect(parseBudgetCommand("")).toEqual({ ok: true, command: { kind: "show" } });
    expect(parseBudgetCommand("<@U0ANA|Ana Li> 200k")).toEqual({
      ok: true,
      command: { kind: "set", scope: "user", id: "U0ANA", tokensPerDay: 200_000 },
    });
    expect(parseBudgetCommand("<#C0OPS|ops> 1.5m")).toEqual({
      ok: true,
      command: { kind: "set", scope: "channel", id: "C0OPS", tokensPerDay: 1_500_000 },
    });
    expect(parseBudgetCommand("U0ANA off")).toMatchObject({ command: { tokensPerDay: null } });
    expect(parseBudgetCommand("<#C0OPS> Default")).toMatchObject({ command: { tokensPerDay: null } });
    expect(parseBudgetCommand("<@U0ANA> 0")).toMatchObject({ command: { tokensPerDay: 0 } });
  });

  it("hands a name back to be looked up: @handle, #channel, a display name with spaces, quoted or not", () => {
    expect(parseBudgetCommand("@ana 200k")).toEqual({
      ok: true,
      command: { kind: "set_named", name: "@ana", tokensPerDay: 200_000 },
    });
    expect(parseBudgetCommand("#ops off")).toEqual({
      ok: true,
      command: { kind: "set_named", name: "#ops", tokensPerDay: null },
    });
    expect(parseBudgetCommand("Li Ming 1.5m")).toMatchObject({
      command: { kind: "set_named", name: "Li Ming", tokensPerDay: 1_500_000 },
    });
    expect(parseBudgetCommand('"Li Ming" 5k')).toMatchObject({
      command: { kind: "set_named", name: "Li Ming" },
    });
    expect(parseBudgetCommand("李明 5k")).toMatchObject({ command: { kind: "set_named", name: "李明" } });
  });

  it("says what is wrong, with the usage", () => {
    const wrong = (text: string) => {
      const r = parseBudgetCommand(text);
      return r.ok ? "" : r.error;
    };
    expect(wrong("<!here> 200k")).toMatch(/^`<!here>` is not a user or a channel\. Write `\/hermes budget/);
    expect(wrong("<@U0ANA> lots")).toMatch(
      /^`lots` is not a token count\. Write `\/hermes budget @user 200k`/,
    );
    expect(wrong("<@U0ANA>")).toMatch(/^That is not a budget change\./);
    expect(wrong("<@U0ANA> 200k please")).toMatch(/^That is not a budget change\./);
  });
});
