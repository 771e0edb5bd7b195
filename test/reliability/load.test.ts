import { describe, expect, it } from "vitest";
import { describeLoad, runLoad } from "./load-scenario.ts";

/**
 * 200 concurrent threads against one Hermes process (Postgres + Redis/BullMQ), scripted model at
 * 50 ms per call, a tool call and an answer per turn. Correctness is asserted; the figures are
 * printed (a timing promise belongs in a benchmark: `npm run test:soak` runs 1000 threads).
 */
describe("load: 200 concurrent threads", () => {
  it("every turn completes with one answer, each call is requested and executed once, the chain verifies", async () => {
    const r = await runLoad({ threads: 200 });
    console.log(describeLoad(r));
    expect(r.wrongAnswers).toEqual([]);
    expect(r.audit.badCalls).toEqual([]);
    expect(r.audit).toMatchObject({ requested: 200, executed: 200, other: 0 });
    expect(r.tickets).toBe(200);
    expect(r.modelRequests).toBe(400);
    expect(r.chainOk).toBe(true);
  }, 300_000);
});
