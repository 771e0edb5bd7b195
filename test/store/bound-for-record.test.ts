import { describe, expect, it } from "vitest";
import { boundForRecord, MAX_CHARS_BEFORE_REDACTION } from "../../src/store/bound-for-record.ts";
import { MAX_ARGS_JSON } from "../../src/store/run-record-store.ts";

const chars = (v: unknown): number =>
  typeof v === "string"
    ? v.length
    : v && typeof v === "object"
      ? Object.entries(v).reduce((n, [k, x]) => n + (Array.isArray(v) ? 0 : k.length) + chars(x), 0)
      : 0;

describe("boundForRecord: what a run record redacts is small, whatever the model sent", () => {
  it("keeps small data as it is", () => {
    const data = {
      tool: "create_ticket",
      args: { title: "VPN down", tags: ["net", "urgent"], n: 3, ok: true },
    };
    expect(boundForRecord(data)).toEqual(data);
  });

  it("cuts megabytes of strings, keys and entries to the budget, with a margin past what is stored", () => {
    expect(MAX_CHARS_BEFORE_REDACTION).toBeGreaterThan(MAX_ARGS_JSON);
    const huge = {
      args: {
        title: "x".repeat(1_000_000),
        many: Array.from({ length: 100_000 }, (_, i) => `item ${i}`),
        ["k".repeat(50_000)]: "v",
      },
    };
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key${i}`, i]));
    let deep: unknown = "bottom";
    for (let i = 0; i < 1000; i++) deep = { d: deep };
    for (const value of [huge, wide, deep]) {
      const bounded = boundForRecord(value);
      // Each cut adds one "…"; the marker strings for cut lists and keys are a few characters each.
      expect(chars(bounded)).toBeLessThan(MAX_CHARS_BEFORE_REDACTION + 2_000);
      expect(JSON.stringify(bounded).length).toBeLessThan(40_000);
    }
    // The keys before it ("args", "title") count against the budget too.
    const title = (boundForRecord(huge) as { args: { title: string } }).args.title;
    expect(title).toBe(`${"x".repeat(MAX_CHARS_BEFORE_REDACTION - "argstitle".length)}…`);
  });
});
