import { describe, expect, it } from "vitest";
import { isHermesError } from "../../src/core/errors.ts";
import { parseTimeBound } from "../../src/store/audit-time.ts";

const now = new Date("2025-03-10T12:00:00.000Z");

describe("parseTimeBound", () => {
  it.each([
    ["30m", "2025-03-10T11:30:00.000Z"],
    ["24h", "2025-03-09T12:00:00.000Z"],
    ["7d", "2025-03-03T12:00:00.000Z"],
    ["2w", "2025-02-24T12:00:00.000Z"],
    ["90s", "2025-03-10T11:58:30.000Z"],
    [" 24H ", "2025-03-09T12:00:00.000Z"],
  ])("%s before now", (input, expected) => {
    expect(parseTimeBound(input, now).toISOString()).toBe(expected);
  });

  it.each([
    ["2025-03-01", "2025-03-01T00:00:00.000Z"],
    ["2025-03-01T09:30", "2025-03-01T09:30:00.000Z"],
    ["2025-03-01 09:30:15", "2025-03-01T09:30:15.000Z"],
    ["2025-03-01T09:30Z", "2025-03-01T09:30:00.000Z"],
    ["2025-03-01T09:30:00.250+08:00", "2025-03-01T01:30:00.250Z"],
  ])("ISO %s (UTC unless an offset is given)", (input, expected) => {
    expect(parseTimeBound(input, now).toISOString()).toBe(expected);
  });

  it.each(["", "yesterday", "24", "1x", "-1h", "2025-13-40", "03/01/2025"])("refuses %j", (input) => {
    let error: unknown;
    try {
      parseTimeBound(input, now);
    } catch (err) {
      error = err;
    }
    expect(isHermesError(error, "bad_request")).toBe(true);
  });
});
