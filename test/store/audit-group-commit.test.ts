import { describe, expect, it } from "vitest";
import { createGroupCommit } from "../../src/store/audit-group-commit.ts";

/** A write that records each batch and takes a moment, as a database round trip does. */
function recordingWrite(fail?: (batch: number[]) => boolean) {
  const batches: number[][] = [];
  const write = async (batch: number[]) => {
    batches.push(batch);
    await new Promise((r) => setTimeout(r, 5));
    if (fail?.(batch)) throw new Error("write failed");
    return batch.map((n) => `row ${n}`);
  };
  return { batches, write };
}

describe("audit group commit", () => {
  it("writes what arrives during a write in the next one, in arrival order, and answers each append with its row", async () => {
    const { batches, write } = recordingWrite();
    const append = createGroupCommit(write);
    const rows = await Promise.all(Array.from({ length: 200 }, (_, i) => append(i)));
    expect(rows).toEqual(Array.from({ length: 200 }, (_, i) => `row ${i}`));
    expect(batches.map((b) => b.length)).toEqual([1, 199]);
    expect(batches.flat()).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it("caps a batch, and writes one at a time", async () => {
    const { batches, write } = recordingWrite();
    let inFlight = 0;
    let most = 0;
    const append = createGroupCommit(
      async (batch: number[]) => {
        most = Math.max(most, ++inFlight);
        try {
          return await write(batch);
        } finally {
          inFlight--;
        }
      },
      { maxBatch: 50 },
    );
    await Promise.all(Array.from({ length: 120 }, (_, i) => append(i)));
    expect(batches.map((b) => b.length)).toEqual([1, 50, 50, 19]);
    expect(most).toBe(1);
  });

  it("a failed write rejects every append of its batch, and the next batch is written", async () => {
    const { batches, write } = recordingWrite((batch) => batch.includes(3));
    const append = createGroupCommit(write, { maxBatch: 4 });
    const results = await Promise.allSettled(Array.from({ length: 9 }, (_, i) => append(i)));
    expect(batches).toEqual([[0], [1, 2, 3, 4], [5, 6, 7, 8]]);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "rejected",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    expect(await append(9)).toBe("row 9");
  });
});
