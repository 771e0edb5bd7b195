import { describe, expect, it } from "vitest";
import { parseProfilesYaml } from "../../src/profiles/profiles-file.ts";
import { parseProfileCommand } from "../../src/slack/commands/parse-profile-command.ts";

const change = (args: string) => {
  const parsed = parseProfileCommand(args);
  return parsed.ok && parsed.command.kind === "set" ? parsed.command.change : parsed;
};

describe("profile fields: model, fallback_model, tokens_per_day, streaming", () => {
  it("YAML keys as documented; every problem listed in one message", () => {
    const profiles = parseProfilesYaml(
      [
        "C0OPS:",
        "  model: qwen2.5:14b-instruct",
        "  fallback_model: qwen2.5:7b-instruct",
        "  tokens_per_day: 2000000",
        "  streaming: off",
        "default:",
        "  streaming: true",
      ].join("\n"),
      "p.yaml",
    );
    expect(profiles.get("C0OPS")).toEqual({
      model: "qwen2.5:14b-instruct",
      fallbackModel: "qwen2.5:7b-instruct",
      tokensPerDay: 2_000_000,
      streaming: false,
    });
    expect(profiles.get("default")).toEqual({ streaming: true });
    expect(() =>
      parseProfilesYaml(
        [
          "C0OPS:",
          "  model: two words",
          "  tokens_per_day: -5",
          "  streaming: sometimes",
          "  fallback: x",
        ].join("\n"),
        "p.yaml",
      ),
    ).toThrow(
      /C0OPS: model: `two words` is not a model name[\s\S]*C0OPS: tokens_per_day: must be 0 \(no limit\) or more[\s\S]*C0OPS: streaming:[\s\S]*unknown field fallback \(allowed: instructions, tools, level, model, fallback_model, tokens_per_day, streaming\)/,
    );
  });

  it("/hermes profile set: each field, `unset` removes it, bad values get a sentence", () => {
    expect(change("set model qwen2.5:14b")).toEqual({ field: "model", value: "qwen2.5:14b" });
    expect(change("set #ops fallback_model small-model")).toEqual({
      field: "fallbackModel",
      value: "small-model",
    });
    expect(change("set model unset")).toEqual({ field: "model", value: null });
    expect(change("set tokens_per_day 1.5m")).toEqual({ field: "tokensPerDay", value: 1_500_000 });
    expect(change("set tokens_per_day 0")).toEqual({ field: "tokensPerDay", value: 0 });
    expect(change("set tokens_per_day off")).toEqual({ field: "tokensPerDay", value: null });
    expect(change("set streaming off")).toEqual({ field: "streaming", value: false });
    expect(change("set streaming ON")).toEqual({ field: "streaming", value: true });
    expect(change("set streaming unset")).toEqual({ field: "streaming", value: null });
    expect(change("set tokens_per_day 1,5m")).toMatchObject({
      ok: false,
      error: expect.stringContaining("a comma could be a decimal point"),
    });
    expect(change("set model a b")).toMatchObject({ ok: false, error: expect.stringContaining("no spaces") });
    expect(change("set colour blue")).toMatchObject({
      ok: false,
      error: expect.stringContaining(
        "use instructions, tools, level, model, fallback_model, tokens_per_day or streaming",
      ),
    });
  });
});
