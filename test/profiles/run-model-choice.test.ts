import { describe, expect, it } from "vitest";
import type { ChatModel } from "../../src/agent/model/chat-model.ts";
import { type ModelSet, modelsForRun } from "../../src/agent/model/models-for-run.ts";

const fake = (name: string): ChatModel => ({
  name,
  maxOutputTokens: 100,
  complete: () => Promise.reject(new Error("not called")),
});

/** How a run's models follow its channel's profile: a variant only where the profile asks for one. */
describe("modelsForRun with a channel's choice", () => {
  const asked: Array<{ role: string; model?: string; stream?: boolean }> = [];
  const set: ModelSet = {
    primary: fake("main"),
    fallback: fake("backup"),
    variant: (role, o) => {
      asked.push({ role, ...o });
      return fake(`${role}:${o.model ?? "same"}:${o.stream ?? "same"}`);
    },
  };

  it("no choice: the configured models, no variant made", () => {
    asked.length = 0;
    expect(modelsForRun(set).fallbackModel?.name).toBe("backup");
    expect(modelsForRun(set).model.name).toContain("main");
    expect(asked).toEqual([]);
  });

  it("a model, a fallback and streaming: variants of each role", () => {
    asked.length = 0;
    const run = modelsForRun(set, undefined, { model: "big", fallbackModel: "small", streaming: false });
    expect(run.model.name).toContain("primary:big:false");
    expect(run.fallbackModel?.name).toBe("fallback:small:false");
    expect(asked).toEqual([
      { role: "primary", model: "big", stream: false },
      { role: "fallback", model: "small", stream: false },
    ]);
  });

  it("a profile's fallback without HERMES_FALLBACK_MODEL still gets one; command mode gets none", () => {
    const { fallback: _none, ...withoutFallback } = set;
    expect(modelsForRun(withoutFallback, undefined, { fallbackModel: "small" }).fallbackModel?.name).toBe(
      "fallback:small:same",
    );
    expect(modelsForRun(withoutFallback).fallbackModel).toBeUndefined();
    const { primary: _p, ...commandMode } = withoutFallback;
    expect(
      modelsForRun(commandMode, undefined, { model: "big", fallbackModel: "small" }).fallbackModel,
    ).toBeUndefined();
  });
});
