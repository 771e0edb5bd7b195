import { describe, expect, it } from "vitest";
import { BudgetExceededError, BudgetUnavailableError } from "../../../src/agent/budget/budget-guard.ts";
import { DEFAULT_LIMITS } from "../../../src/agent/run/runtime-types.ts";
import { stopMessage } from "../../../src/agent/run/stop-messages.ts";
import {
  aborted,
  budgetRefused,
  firstStop,
  type LastStep,
  maxSteps,
  STOP_RULES,
  type StopRule,
  type StopView,
  truncated,
} from "../../../src/agent/run/stop-rules.ts";
import { HermesError } from "../../../src/core/errors.ts";

const view = (last: LastStep, over: Partial<StopView> = {}): StopView => ({
  step: 1,
  limits: DEFAULT_LIMITS,
  maxOutputTokens: 512,
  last,
  ...over,
});

describe("stop rules as values", () => {
  it("each rule gives its reason and sentence only when it applies", () => {
    expect(maxSteps(view({ kind: "next" }, { step: 9 }))).toBeUndefined();
    expect(maxSteps(view({ kind: "next" }, { step: 10 }))).toEqual({
      status: "stopped",
      reason: "max_steps",
      answer: stopMessage("max_steps", { steps: 10 }),
    });
    expect(truncated(view({ kind: "truncated", count: 1 }))).toBeUndefined();
    expect(truncated(view({ kind: "truncated", count: 2 }))).toEqual({
      status: "stopped",
      reason: "truncated",
      answer: stopMessage("truncated", { maxTokens: 512 }),
    });
    expect(aborted(view({ kind: "aborted", cancelled: true }))?.reason).toBe("cancelled");
    expect(
      aborted(
        view({ kind: "aborted", cancelled: false }, { limits: { ...DEFAULT_LIMITS, turnTimeoutMs: 1500 } }),
      ),
    ).toEqual({
      status: "stopped",
      reason: "turn_timeout",
      answer: stopMessage("turn_timeout", { budgetSeconds: 1.5 }),
    });
    expect(aborted(view({ kind: "next" }))).toBeUndefined();
  });

  it("a budget refusal stops with the refusal's sentence; unreadable budgets fail with the storage sentence", () => {
    const refusal = { scope: "user" as const, id: "U1", limit: 1000, used: 990, reserved: 0, requested: 50 };
    const exceeded = budgetRefused(view({ kind: "refused", error: new BudgetExceededError(refusal) }));
    expect(exceeded).toEqual({
      status: "stopped",
      reason: "budget",
      answer: stopMessage("budget", { budget: refusal }),
    });
    const down = new BudgetUnavailableError(new HermesError("storage_unavailable", "The database is down."));
    expect(budgetRefused(view({ kind: "refused", error: down }))).toEqual({
      status: "failed",
      reason: "storage_unavailable",
      answer: "The database is down.",
    });
  });

  it("the default list puts what the last step ran into before the step limit", () => {
    const atLimit = { step: DEFAULT_LIMITS.maxSteps };
    const streak = { tool: "create_ticket", failures: 3, lastError: "boom" };
    const cases: Array<[LastStep, string]> = [
      [{ kind: "aborted", cancelled: true }, "cancelled"],
      [{ kind: "model_error", error: "down" }, "model_error"],
      [{ kind: "truncated", count: 2 }, "truncated"],
      [{ kind: "unreadable" }, "unreadable_calls"],
      [{ kind: "repeated_failure", streak }, "repeated_failure"],
      [{ kind: "next" }, "max_steps"],
    ];
    for (const [last, reason] of cases)
      expect(firstStop(STOP_RULES, view(last, atLimit))?.reason).toBe(reason);
    expect(firstStop(STOP_RULES, view({ kind: "next" }))).toBeUndefined();
    expect(firstStop(STOP_RULES, view({ kind: "repeated_failure", streak }))?.answer).toBe(
      stopMessage("repeated_failure", streak),
    );
  });

  it("a list is checked in order and any rule can join it", () => {
    const never: StopRule = () => undefined;
    const always: StopRule = () => ({ status: "failed", reason: "model_error", answer: "custom" });
    expect(firstStop([never, always, maxSteps], view({ kind: "next" }, { step: 99 }))?.answer).toBe("custom");
    expect(firstStop([never], view({ kind: "next" }, { step: 99 }))).toBeUndefined();
  });
});
