import { describe, expect, it } from "vitest";
import type { ModelSet } from "../../../src/agent/model/models-for-run.ts";
import type { RunSettings } from "../../../src/agent/run/agent-runtime.ts";
import { delegate } from "../../../src/agent/run/delegate.ts";
import { runTurn } from "../../../src/agent/run/loop.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { createPolicy } from "../../../src/policy/create-policy.ts";
import { type BudgetStore, utcDay } from "../../../src/store/budget-store.ts";
import { execSql, type TestStore } from "../../helpers/pg.ts";
import { withPostgresBudgets } from "../../helpers/postgres-budgets.ts";
import { fixtureTools, testModel, testRegistry, testRun } from "../../helpers/runtime.ts";
import { answer, ScriptedModelServer, toolCalls } from "../../helpers/scripted-model.ts";

/**
 * What a channel's profile sets (models, the channel's daily budget) reaches a delegated sub-agent
 * as it reaches its caller's run. The end-to-end case through Slack is
 * test/profiles/profile-delegate-budget.test.ts.
 */
describe("delegate: the caller's run settings (postgres)", () => {
  const server = new ScriptedModelServer();
  let store: TestStore;
  let budgets: BudgetStore;
  withPostgresBudgets(server, (s, b) => {
    store = s;
    budgets = b;
  });

  const usedToday = async (scope: string, id: string) => {
    const [r] = await execSql<{ used: string }>(
      store.handle.db,
      `SELECT used FROM token_usage WHERE scope = '${scope}' AND scope_id = '${id}' AND day = '${utcDay(new Date())}'`,
    );
    return Number(r?.used ?? 0);
  };

  /** The caller's run (its own model unmetered), with `delegate` given `settings` by its access. */
  function callerRun(
    channelId: string,
    settings: RunSettings,
    asked: Array<{ role: string; model?: string; stream?: boolean }>,
  ) {
    const { registry } = testRegistry(fixtureTools([]));
    const models: ModelSet = {
      primary: testModel(server),
      variant: (role, o) => {
        asked.push({ role, ...o });
        return testModel(server, { model: o.model ?? "scripted", maxRetries: 0 });
      },
    };
    registry.register(
      delegate({
        model: testModel(server),
        models,
        registry,
        logger: silentLogger(),
        budget: budgets,
        access: () => ({ allowed, policy: hook, settings }),
      }),
    );
    const { hook, allowed } = createPolicy({ tools: registry.list(), level: "user" });
    return runTurn(
      { run: { ...testRun, userId: "U0SETTINGS", channelId }, history: [], userMessage: "ask a helper" },
      { model: testModel(server), registry, logger: silentLogger(), policy: hook },
    );
  }

  it("the sub-agent asks for the profile's model, never streamed, with the profile's fallback", async () => {
    const asked: Array<{ role: string; model?: string; stream?: boolean }> = [];
    server.enqueue(
      toolCalls([{ name: "delegate", args: { task: "what time is it?" } }]),
      { status: 503, body: { error: { message: "overloaded" } } }, // the sub-agent's model
      answer("It is 10:00."), // its fallback
      answer("The sub-agent says 10:00."),
    );
    const r = await callerRun(
      "C0SETMODEL",
      { model: "model-x", fallbackModel: "fallback-x", streaming: true },
      asked,
    );
    expect(r.status).toBe("completed");
    expect(server.requests.map((q) => q.body.model)).toEqual([
      "scripted",
      "model-x",
      "fallback-x",
      "scripted",
    ]);
    expect(asked).toEqual([
      { role: "primary", model: "model-x", stream: false },
      { role: "fallback", model: "fallback-x", stream: false },
    ]);
  });

  it("the sub-agent is held to the channel's budget from the profile, as its caller's run is", async () => {
    server.enqueue(
      toolCalls([{ name: "delegate", args: { task: "what time is it?" } }]),
      answer("The sub-agent could not run."),
    );
    const r = await callerRun("C0SETBUDGET", { channelTokensPerDay: 10 }, []);
    expect(r.status).toBe("completed");
    // The caller's model got the sub-agent's result; the sub-agent's model was never asked.
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("daily token budget (10 tokens)");
    expect(await usedToday("channel", "C0SETBUDGET")).toBe(0);
  });
});
