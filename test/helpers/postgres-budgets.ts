import { afterAll, beforeAll, beforeEach } from "vitest";
import { createAuditLog } from "../../src/store/audit.ts";
import { type BudgetStore, createBudgetStore } from "../../src/store/budget-store.ts";
import { openTestStore, type TestStore } from "./pg.ts";
import type { ScriptedModelServer } from "./scripted-model.ts";

/**
 * Registers the hooks of a suite that runs a scripted model against real budgets: the server started
 * (and reset before each test), a Postgres test store, and a budget store on it with no default
 * limits; `take` receives the store and the budgets once they are open.
 */
export function withPostgresBudgets(
  server: ScriptedModelServer,
  take: (store: TestStore, budgets: BudgetStore) => void,
): void {
  let store: TestStore | undefined;
  beforeAll(async () => {
    await server.start();
    store = await openTestStore("postgres");
    const budgets = createBudgetStore({
      db: store.handle.db,
      audit: createAuditLog({ db: store.handle.db }),
      defaults: { userTokensPerDay: 0, channelTokensPerDay: 0 },
    });
    take(store, budgets);
  });
  afterAll(async () => {
    await server.stop();
    await store?.cleanup();
  });
  beforeEach(() => server.reset());
}
