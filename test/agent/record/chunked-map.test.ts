import { describe, expect, it } from "vitest";
import {
  chunkedGet,
  chunkedSet,
  chunkedValues,
  emptyChunkedMap,
} from "../../../src/agent/record/chunked-map.ts";

describe("chunked map", () => {
  it("sets and gets by key without changing the map it was given", () => {
    let m = chunkedSet<number>(emptyChunkedMap, "a", 1);
    const before = m;
    const keys = Array.from({ length: 300 }, (_, i) => `call_${i}`);
    for (const [i, k] of keys.entries()) m = chunkedSet(m, k, i);
    m = chunkedSet(m, "a", 2);
    expect(chunkedGet(before, "a")).toBe(1);
    expect(chunkedGet(before, "call_0")).toBeUndefined();
    expect(chunkedGet(m, "a")).toBe(2);
    expect(keys.every((k, i) => chunkedGet(m, k) === i)).toBe(true);
    expect(chunkedGet(m, "nope")).toBeUndefined();
    expect(chunkedValues(m).sort((x, y) => x - y)).toEqual(
      [...keys.map((_, i) => i), 2].sort((x, y) => x - y),
    );
    expect(chunkedValues(emptyChunkedMap)).toEqual([]);
  });
});
