import { describe, expect, it } from "vitest";
import type { TokenBudget } from "../../../src/agent/budget/token-budget.ts";
import { modelCallLimit } from "../../../src/agent/model/limit-model-calls.ts";
import { type ModelSet, modelsForRun } from "../../../src/agent/model/models-for-run.ts";
import { type AgentRuntime, runtimeDepsFor } from "../../../src/agent/run/agent-runtime.ts";
import { runTurn } from "../../../src/agent/run/loop.ts";
import type { TraceEvent } from "../../../src/agent/run/trace.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { createPolicy } from "../../../src/policy/create-policy.ts";
import { createAuditLog } from "../../../src/store/audit.ts";
import { type BudgetStore, createBudgetStore, utcDay } from "../../../src/store/budget-store.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { execSql, openTestStore, type TestStore } from "../../helpers/pg.ts";
import { withPostgresBudgets } from "../../helpers/postgres-budgets.ts";
import {
  type Execution,
  fixtureTools,
  testModel,
  testRegistry,
  testRun,
  traceCollector,
} from "../../helpers/runtime.ts";
import { answer, ScriptedModelServer, stalled } from "../../helpers/scripted-model.ts";

/**
 * The models a run gets through the wiring workers use (`modelsForRun` as start-up builds it, then
 * `runtimeDepsFor` per run): command mode in front, the concurrency limit, and the budget meter
 * innermost, against the real budget store on Postgres and the scripted model server.
 */
describe("a run's models: command mode and the concurrency limit around the budget meter", () => {
  const server = new ScriptedModelServer();
  let store: TestStore;
  let budgets: BudgetStore;
  withPostgresBudgets(server, (s, b) => {
    store = s;
    budgets = b;
  });

  async function scopeRow(scope: string, id: string) {
    const [r] = await execSql<{ used: string; reserved: string }>(
      store.handle.db,
      `SELECT used, reserved FROM token_usage WHERE scope = '${scope}' AND scope_id = '${id}' AND day = '${utcDay(new Date())}'`,
    );
    return r ? { used: Number(r.used), reserved: Number(r.reserved) } : { used: 0, reserved: 0 };
  }

  /** One turn as a worker runs it: `runtimeDepsFor` over a runtime start-up built from `models`. */
  function turn(
    models: ModelSet,
    o: {
      userId: string;
      channelId: string;
      text: string;
      signal?: AbortSignal;
      budget?: TokenBudget;
      onTraceEvent?: (e: TraceEvent) => void;
    },
    executions: Execution[] = [],
  ) {
    const { registry } = testRegistry(fixtureTools(executions));
    const { hook, allowed } = createPolicy({ tools: registry.list(), level: "user" });
    const runtime: AgentRuntime = {
      ...modelsForRun(models),
      models,
      registry,
      guards: {},
      auditSink: async () => {},
      limits: {},
      budget: o.budget ?? budgets,
    };
    const deps = runtimeDepsFor(
      { ...runtime, logger: silentLogger() },
      { userId: o.userId, policy: hook, allowed },
      o.signal ?? new AbortController().signal,
      o.channelId,
    );
    return runTurn(
      { run: { ...testRun, userId: o.userId, channelId: o.channelId }, history: [], userMessage: o.text },
      { ...deps, ...(o.onTraceEvent ? { onTraceEvent: o.onTraceEvent } : {}) },
    );
  }

  it("an out-of-budget user still gets `help` and `run …` (no model asked), but not a chat answer", async () => {
    await budgets.setLimit(
      { scope: "user", id: "U0BROKE", tokensPerDay: 10, by: "U0ADMIN" },
      { action: "budget.changed", tool: "/hermes", userId: "U0ADMIN", actorId: "U0ADMIN" },
    );
    const models: ModelSet = { primary: testModel(server), fallback: testModel(server) };
    const who = { userId: "U0BROKE", channelId: "C0CMD" };

    const help = await turn(models, { ...who, text: "help" });
    expect(help).toMatchObject({ status: "completed", modelCalls: 1 });
    expect(help.answer).toContain("Tools you may use:");
    expect(help.answer).toContain("`run get_current_time");

    const executions: Execution[] = [];
    const ran = await turn(models, { ...who, text: "run get_current_time" }, executions);
    expect(ran.status).toBe("completed");
    expect(executions.map((e) => e.name)).toEqual(["get_current_time"]);
    // The command's own reply, not the budget sentence.
    expect(ran.answer).not.toContain("daily token budget");

    const chat = await turn(models, { ...who, text: "how is the VPN today?" });
    expect(chat).toMatchObject({ status: "stopped", stopReason: "budget", modelCalls: 0 });
    expect(chat.answer).toContain("more than your whole daily token budget (10 tokens)");
    expect(server.requests).toHaveLength(0);
    expect(await scopeRow("user", "U0BROKE")).toEqual({ used: 0, reserved: 0 });
  });

  it("a chat message that reaches the model is paid for inside command mode", async () => {
    server.enqueue(answer("It is fine."));
    const r = await turn(
      { primary: testModel(server) },
      { userId: "U0CHAT", channelId: "C0CHAT", text: "hi" },
    );
    expect(r.status).toBe("completed");
    expect(await scopeRow("user", "U0CHAT")).toEqual({ used: 120, reserved: 0 });
    expect(await scopeRow("channel", "C0CHAT")).toEqual({ used: 120, reserved: 0 });
  });

  it("with HERMES_MODEL_CONCURRENCY=1, a turn waiting for the slot holds no reservation", async () => {
    const limit = modelCallLimit(1);
    const models: ModelSet = { primary: testModel(server, { maxRetries: 0, timeoutMs: 60_000 }), limit };
    server.enqueue(stalled(answer("slow")), answer("It is 10:00."));
    const first = new AbortController();
    const slow = turn(models, { userId: "U0SLOW", channelId: "C0Q", text: "slow one", signal: first.signal });
    await waitFor(() => server.requests.length === 1, 30_000, "the first call at the model");
    const queued = turn(models, { userId: "U0QUEUED", channelId: "C0Q2", text: "what time is it?" });
    await waitFor(() => limit.pendingCount === 1, 30_000, "the second call waiting for the slot");

    expect((await scopeRow("user", "U0SLOW")).reserved).toBeGreaterThan(0);
    expect(await scopeRow("user", "U0QUEUED")).toEqual({ used: 0, reserved: 0 });
    expect(await scopeRow("channel", "C0Q2")).toEqual({ used: 0, reserved: 0 });

    first.abort();
    expect((await slow).stopReason).toBe("cancelled");
    expect((await queued).status).toBe("completed");
    expect(await scopeRow("user", "U0SLOW")).toEqual({ used: 0, reserved: 0 });
    expect(await scopeRow("user", "U0QUEUED")).toEqual({ used: 120, reserved: 0 });
  });

  it("budgets that cannot be read stop the run with the database sentence, without the fallback model", async () => {
    const down = await openTestStore("postgres");
    const unreachable = createBudgetStore({
      db: down.handle.db,
      audit: createAuditLog({ db: down.handle.db }),
      defaults: { userTokensPerDay: 0, channelTokensPerDay: 0 },
    });
    await down.cleanup(); // its pool is closed and its database gone: every query fails
    server.enqueue(answer("from the fallback"));
    const trace = traceCollector();
    const r = await turn(
      { primary: testModel(server), fallback: testModel(server) },
      { userId: "U0DOWN", channelId: "C0DOWN", text: "hello", budget: unreachable, ...trace },
    );
    expect(r).toMatchObject({ status: "failed", stopReason: "storage_unavailable", modelCalls: 0 });
    expect(r.answer).toBe(
      "Hermes could not reach its database (token budgets), so this was not done. Try again in a moment.",
    );
    expect(server.requests).toHaveLength(0);
    expect(trace.of("model.budget_unavailable")).toHaveLength(1);
    expect(trace.of("model.fallback")).toEqual([]);
    expect(trace.of("model.error")).toEqual([]);
  });
});
