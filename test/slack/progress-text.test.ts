import { describe, expect, it } from "vitest";
import type { TraceEvent } from "../../src/agent/run/trace.ts";
import { createProgressText } from "../../src/slack/progress-text.ts";

const ev = (event: string, step: number, extra: Record<string, unknown> = {}) =>
  ({ event, step, runId: "r", sessionKey: "s", ...extra }) as TraceEvent;

describe("progress lines", () => {
  it("announce the fallback model, and every later line names it", () => {
    const text = createProgressText();
    expect(text(ev("model.request", 1))).toBeUndefined();
    expect(text(ev("model.request", 2))).toBe(":hourglass_flowing_sand: Thinking…");
    expect(text(ev("model.fallback", 2, { model: "backup", reason: "unreadable_output" }))).toBe(
      ":twisted_rightwards_arrows: The model's tool calls could not be read; going on with the fallback model `backup`…",
    );
    expect(text(ev("model.request", 3))).toBe(":hourglass_flowing_sand: Thinking… (fallback model `backup`)");
    expect(text(ev("tool.start", 3, { tool: "create_ticket" }))).toBe(
      ":hourglass_flowing_sand: Running `create_ticket`… (fallback model `backup`)",
    );
  });

  it("an unavailable primary is said as such", () => {
    const text = createProgressText();
    expect(text(ev("model.fallback", 1, { model: "b", reason: "primary_unavailable" }))).toContain(
      "The model is not answering; going on with the fallback model `b`",
    );
    expect(text(ev("model.request", 1))).toBe(":hourglass_flowing_sand: Thinking… (fallback model `b`)");
  });
});
