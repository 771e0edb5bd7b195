import { describe, expect, it } from "vitest";
import { cachedById } from "../../../src/slack/references/cached-by-id.ts";

describe("one Slack object by id, cached per id", () => {
  it("keeps a found id for ttlMs and an absent one for the shorter absentTtlMs", async () => {
    let now = 0;
    const asked: string[] = [];
    const byId = cachedById(
      async (id: string) => {
        asked.push(id);
        return id === "U0KNOWN" ? { id } : undefined;
      },
      { ttlMs: 600_000, absentTtlMs: 60_000, now: () => now },
    );
    expect(await byId("U0KNOWN")).toEqual({ id: "U0KNOWN" });
    expect(await byId("U0NOBODY")).toBeUndefined();
    now += 59_000;
    await byId("U0KNOWN");
    await byId("U0NOBODY");
    expect(asked).toEqual(["U0KNOWN", "U0NOBODY"]);
    now += 2_000; // past the absent answer's time, within the found one's
    await byId("U0KNOWN");
    await byId("U0NOBODY");
    expect(asked).toEqual(["U0KNOWN", "U0NOBODY", "U0NOBODY"]);
    now += 600_000;
    await byId("U0KNOWN");
    expect(asked.filter((id) => id === "U0KNOWN")).toHaveLength(2);
  });

  it("a burst of one id shares one request; a failure is not kept", async () => {
    let calls = 0;
    let failing = true;
    const byId = cachedById(async (id: string) => {
      calls++;
      await Promise.resolve();
      if (failing) throw new Error("ratelimited");
      return { id };
    });
    const burst = await Promise.allSettled([byId("C0OPS"), byId("C0OPS"), byId("C0OPS")]);
    expect(burst.every((r) => r.status === "rejected")).toBe(true);
    expect(calls).toBe(1);
    failing = false;
    expect(await byId("C0OPS")).toEqual({ id: "C0OPS" });
    expect(await byId("C0OPS")).toEqual({ id: "C0OPS" });
    expect(calls).toBe(2);
  });

  it("keeps at most maxEntries ids, dropping the oldest answer", async () => {
    const asked: string[] = [];
    const byId = cachedById(
      async (id: string) => {
        asked.push(id);
        return { id };
      },
      { maxEntries: 2 },
    );
    await byId("U1");
    await byId("U2");
    await byId("U3"); // U1 dropped
    await byId("U2");
    await byId("U1");
    expect(asked).toEqual(["U1", "U2", "U3", "U1"]);
  });
});
