import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardBudget } from "../../src/agent/budget/budget-guard.ts";
import { tokenizerLoaded } from "../../src/agent/context/token-count.ts";
import { runTurn } from "../../src/agent/run/loop.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { createBudgetStore } from "../../src/store/budget-store.ts";
import { openTestStore, type TestStore } from "../helpers/pg.ts";
import { testModel, testRegistry, testRun } from "../helpers/runtime.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";

// Module state: this file's fork loads the tokenizer only through what these tests do.
describe("the tokenizer (~50 MB) loads on the first exact count, not before (postgres)", () => {
  const server = new ScriptedModelServer();
  let store: TestStore;
  beforeAll(async () => {
    await server.start();
    store = await openTestStore("postgres");
  });
  afterAll(async () => {
    await server.stop();
    await store?.cleanup();
  });

  it("a short thread under daily budgets is answered and paid for without it; a tight budget loads it", async () => {
    const budgets = createBudgetStore({
      db: store.handle.db,
      audit: createAuditLog({ db: store.handle.db }),
      defaults: { userTokensPerDay: 1_000_000, channelTokensPerDay: 1_000_000 },
    });
    const { registry } = testRegistry([]);
    const turn = (userId: string) =>
      runTurn(
        {
          run: { ...testRun, userId, channelId: "C0LAZY" },
          history: [],
          userMessage: "How is the VPN today?",
        },
        {
          model: guardBudget(testModel(server), {
            budget: budgets,
            requester: { userId, channelId: "C0LAZY" },
            logger: silentLogger(),
          }),
          registry,
          logger: silentLogger(),
        },
      );

    server.enqueue(answer("Up and running."));
    const r = await turn("U0LAZY");
    expect(r.status).toBe("completed");
    expect(r.usage.totalTokens).toBeGreaterThan(0);
    expect(tokenizerLoaded()).toBe(false);

    // A budget without room for the prompt's bytes bound: it is counted exactly before being refused.
    await budgets.setLimit(
      { scope: "user", id: "U0TIGHT", tokensPerDay: 100, by: "U0ADMIN" },
      { action: "budget.changed", tool: "/hermes", userId: "U0ADMIN", actorId: "U0ADMIN", args: {} },
    );
    const tight = await turn("U0TIGHT");
    expect(tight).toMatchObject({ status: "stopped", stopReason: "budget", modelCalls: 0 });
    expect(tokenizerLoaded()).toBe(true);
  });
});
