import { describe, expect, it } from "vitest";
import { describeLoad, runLoad } from "./load-scenario.ts";

/** `npm run test:soak`: the load test at 1000 concurrent threads (not part of `npm test`). */
describe("soak: 1000 concurrent threads", () => {
  it("every turn completes with one answer, each call is requested and executed once, the chain verifies", async () => {
    const threads = 1000;
    const r = await runLoad({ threads });
    console.log(describeLoad(r));
    expect(r.wrongAnswers).toEqual([]);
    expect(r.audit.badCalls).toEqual([]);
    expect(r.audit).toMatchObject({ requested: threads, executed: threads, other: 0 });
    expect(r.tickets).toBe(threads);
    expect(r.modelRequests).toBe(2 * threads);
    expect(r.chainOk).toBe(true);
  }, 1_800_000);
});
