import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.ts";
import { parseBudgetCommand } from "../../../src/slack/commands/parse-budget-command.ts";
import { parseHermesCommand } from "../../../src/slack/commands/parse-hermes-command.ts";
import { formatTokens, parseTokenAmount, shortTokens } from "../../../src/token-amount.ts";

describe("token amounts", () => {
  it("reads plain counts, k and m (any case), separators; refuses anything else", () => {
    expect(parseTokenAmount("200000")).toBe(200_000);
    expect(parseTokenAmount("200k")).toBe(200_000);
    expect(parseTokenAmount(" 1.5m ")).toBe(1_500_000);
    expect(parseTokenAmount("2M")).toBe(2_000_000);
    expect(parseTokenAmount("1,000,000")).toBe(1_000_000);
    expect(parseTokenAmount("0")).toBe(0);
    for (const bad of ["", "k", "-5", "1.5g", "lots", "1e6", "200 000"])
      expect(parseTokenAmount(bad)).toBeUndefined();
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
