import { describe, expect, it } from "vitest";
import { isHermesError } from "../../src/core/errors.ts";
import { createApprovalStore } from "../../src/policy/approval-store.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { createEventDedupe } from "../../src/store/event-dedupe.ts";
import { createRunStore } from "../../src/store/run-store.ts";
import { createUserStore } from "../../src/store/user-store.ts";
import { createPgResultStore } from "../../src/tools/pg-result-store.ts";
import { DRIVERS, openTestStore } from "../helpers/pg.ts";

describe.each(DRIVERS)("stores fail closed when the database is gone, on %s", (kind) => {
  it("every store raises storage_unavailable with a readable message and the driver error as cause", async () => {
    const store = await openTestStore(kind);
    const { db } = store.handle;
    const approvals = createApprovalStore({ db, audit: createAuditLog({ db }), ttlSeconds: 60 });
    const calls: Array<() => Promise<unknown>> = [
      () => approvals.get("apr_x"),
      () =>
        approvals.decide({
          approvalId: "apr_x",
          deciderId: "U0A",
          deciderLevel: "admin",
          decision: "approved",
        }),
      () => approvals.expireDue(),
      () => createRunStore({ db }).claimForResume("run_x"),
      () => createEventDedupe({ db }).claim("Ev1", { staleAfterMs: 60_000 }),
      () => createUserStore({ db }).get("U0A"),
      () => createPgResultStore({ db }).get("res_x"),
    ];
    await store.cleanup();
    for (const call of calls) {
      const err = await call().catch((e: unknown) => e);
      expect(isHermesError(err, "storage_unavailable")).toBe(true);
      expect((err as Error).message).toMatch(/^Hermes could not reach its database \(.+\)/);
      expect((err as Error).cause).toBeInstanceOf(Error);
    }
  });
});
