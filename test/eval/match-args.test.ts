import { describe, expect, it } from "vitest";
import { argMismatch, argsMismatches } from "../../src/eval/match-args.ts";

describe("argument matchers", () => {
  it("exact: a bare value or { exact }, compared deeply", () => {
    expect(argMismatch(1, 1)).toBeUndefined();
    expect(argMismatch(1, "1")).toBe('expected 1, got "1"');
    expect(argMismatch({ exact: ["a", "b"] }, ["a", "b"])).toBeUndefined();
    expect(argMismatch({ exact: { a: 1 } }, { a: 2 })).toBe('expected {"a":1}, got {"a":2}');
    expect(argMismatch(null, undefined)).toBe("expected null, got nothing");
  });

  it("regex: matches the text (non-strings as JSON), with flags", () => {
    expect(argMismatch({ regex: "vpn", flags: "i" }, "VPN down")).toBeUndefined();
    expect(argMismatch({ regex: "vpn" }, "VPN down")).toBe('expected text matching /vpn/, got "VPN down"');
    expect(argMismatch({ regex: "^\\[1,2\\]$" }, [1, 2])).toBeUndefined();
    expect(argMismatch({ regex: "x" }, undefined)).toBe("expected text matching /x/, got nothing");
  });

  it("one_of and absent", () => {
    expect(argMismatch({ one_of: ["me", "U0USER1"] }, "me")).toBeUndefined();
    expect(argMismatch({ one_of: ["me"] }, "you")).toBe('expected one of ["me"], got "you"');
    expect(argMismatch({ absent: true }, undefined)).toBeUndefined();
    expect(argMismatch({ absent: true }, "")).toBe('expected no value, got ""');
  });

  it("lists every argument that does not match, by name", () => {
    expect(
      argsMismatches(
        { id: 1, status: { one_of: ["closed"] }, assignee: { absent: true } },
        { id: 2, status: "closed" },
      ),
    ).toEqual(["id: expected 1, got 2"]);
    expect(argsMismatches({ id: 1 }, "not an object")).toEqual(["id: expected 1, got nothing"]);
    expect(argsMismatches(undefined, { anything: true })).toEqual([]);
  });
});
