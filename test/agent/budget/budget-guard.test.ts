import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardBudget } from "../../../src/agent/budget/budget-guard.ts";
import type { BudgetRequester, TokenBudget } from "../../../src/agent/budget/token-budget.ts";
import { createCommandModel } from "../../../src/agent/command/command-model.ts";
import { countTokens, historyTokens, specsTokens } from "../../../src/agent/context/token-count.ts";
import type { ChatModel, ModelRequest } from "../../../src/agent/model/chat-model.ts";
import { meteredModels } from "../../../src/agent/model/models-for-run.ts";
import { delegate } from "../../../src/agent/run/delegate.ts";
import { runTurn } from "../../../src/agent/run/loop.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { createPolicy } from "../../../src/policy/create-policy.ts";
import { createAuditLog } from "../../../src/store/audit.ts";
import { type BudgetStore, createBudgetStore, utcDay } from "../../../src/store/budget-store.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../../helpers/pg.ts";
import { withPostgresBudgets } from "../../helpers/postgres-budgets.ts";
import { waitFor } from "../../helpers/redis-queue.ts";
import { type Execution, fixtureTools, testModel, testRegistry, testRun } from "../../helpers/runtime.ts";
import { answer, ScriptedModelServer, type ScriptStep, toolCalls } from "../../helpers/scripted-model.ts";

/** Sets a limit the way `/hermes budget` does: with its `budget.changed` audit row. */
function setLimit(
  budgets: BudgetStore,
  change: { scope: "user" | "channel"; id: string; tokensPerDay: number | null; by: string },
) {
  return budgets.setLimit(change, {
    action: "budget.changed",
    tool: "/hermes",
    userId: change.by,
    actorId: change.by,
    args: { scope: change.scope, id: change.id, tokens_per_day: change.tokensPerDay },
  });
}

const MAX_OUTPUT = 400;

/** The real store, with every reservation's size noted (the test needs to know what one call holds). */
function noting(store: BudgetStore): { budget: TokenBudget; sizes: number[] } {
  const sizes: number[] = [];
  return {
    sizes,
    budget: {
      reserve: (r, n) => {
        sizes.push(n);
        return store.reserve(r, n);
      },
      settle: (r, n) => store.settle(r, n),
    },
  };
}

async function scopeRow(store: TestStore, scope: string, id: string) {
  const [r] = await execSql<{ used: string; reserved: string }>(
    store.handle.db,
    `SELECT used, reserved FROM token_usage WHERE scope = '${scope}' AND scope_id = '${id}' AND day = '${utcDay(new Date())}'`,
  );
  return r ? { used: Number(r.used), reserved: Number(r.reserved) } : { used: 0, reserved: 0 };
}

/** A plain answer whose usage says it cost exactly `tokens` (prompt + completion). */
function answerCosting(tokens: number, delayMs = 0): ScriptStep {
  const step = answer("Done.") as { completion: Record<string, unknown> };
  return {
    completion: {
      ...step.completion,
      usage: { prompt_tokens: tokens - 100, completion_tokens: 100, total_tokens: tokens },
    },
    delayMs,
  };
}

function metered(model: ChatModel, budget: TokenBudget, requester: BudgetRequester): ChatModel {
  return guardBudget(model, { budget, requester, logger: silentLogger() });
}

describe.each(DRIVERS)("20 concurrent turns against a channel budget worth 10 (%s)", (kind) => {
  const server = new ScriptedModelServer();
  let store: TestStore;
  beforeAll(async () => {
    await server.start();
    store = await openTestStore(kind, { maxConnections: 5 });
  });
  afterAll(async () => {
    await server.stop();
    await store?.cleanup();
  });

  it("never holds or uses more than the limit, and exactly 10 turns are paid for", async () => {
    const budgets = createBudgetStore({
      db: store.handle.db,
      audit: createAuditLog({ db: store.handle.db }),
      defaults: { userTokensPerDay: 0, channelTokensPerDay: 0 },
    });
    const { budget, sizes } = noting(budgets);
    const { registry } = testRegistry([]);
    const model = testModel(server, { maxOutputTokens: MAX_OUTPUT });
    const turn = (userId: string, channelId: string) =>
      runTurn(
        { run: { ...testRun, userId, channelId }, history: [], userMessage: "How is the VPN today?" },
        { model: metered(model, budget, { userId, channelId }), registry, logger: silentLogger() },
      );

    // One turn elsewhere tells what a turn holds; each turn then reports using exactly that.
    server.enqueue(answerCosting(100));
    await turn("U0PROBE", "C0PROBE");
    const perTurn = sizes[0]!;
    expect(perTurn).toBeGreaterThan(MAX_OUTPUT);
    const limit = perTurn * 10;
    await setLimit(budgets, { scope: "channel", id: "C0BURST", tokensPerDay: limit, by: "U0ADMIN" });
    server.fallback = answerCosting(perTurn, 30);

    let running = true;
    let peak = 0;
    let samples = 0;
    const sampler = (async () => {
      while (running) {
        const r = await scopeRow(store, "channel", "C0BURST");
        peak = Math.max(peak, r.used + r.reserved);
        samples++;
        await new Promise((done) => setImmediate(done));
      }
    })();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => turn(`U0T${i}`, "C0BURST")));
    running = false;
    await sampler;

    const completed = results.filter((r) => r.status === "completed");
    const stopped = results.filter((r) => r.status === "stopped");
    expect(completed).toHaveLength(10);
    expect(stopped).toHaveLength(10);
    for (const r of stopped) {
      expect(r.stopReason).toBe("budget");
      expect(r.answer).toContain(
        `This channel has used its daily token budget (${limit.toLocaleString("en-US")} tokens)`,
      );
      expect(r.modelCalls).toBe(0);
    }
    expect(samples).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(limit);
    expect(await scopeRow(store, "channel", "C0BURST")).toEqual({ used: limit, reserved: 0 });
    // Only the turns that ran reached the model: 1 probe + 10.
    expect(server.requests).toHaveLength(11);
  });
});

describe("the budget guard around a run (postgres)", () => {
  const server = new ScriptedModelServer();
  let store: TestStore;
  let budgets: BudgetStore;
  withPostgresBudgets(server, (s, b) => {
    store = s;
    budgets = b;
  });

  const run = (
    userId: string,
    channelId: string,
    text: string,
    model: ChatModel,
    executions: Execution[] = [],
    budget: TokenBudget = budgets,
  ) => {
    const { registry } = testRegistry(fixtureTools(executions));
    return runTurn(
      { run: { ...testRun, userId, channelId }, history: [], userMessage: text },
      { model: metered(model, budget, { userId, channelId }), registry, logger: silentLogger() },
    );
  };

  it("settles each call with the prompt + completion tokens the server reports", async () => {
    server.enqueue(toolCalls([{ name: "get_current_time" }]), answer("It is 10:00."));
    const r = await run("U0REAL", "C0REAL", "what time is it?", testModel(server));
    expect(r.status).toBe("completed");
    // Two calls of 100 + 20 tokens (the scripted usage), nothing left held.
    expect(await scopeRow(store, "user", "U0REAL")).toEqual({ used: 240, reserved: 0 });
    expect(await scopeRow(store, "channel", "C0REAL")).toEqual({ used: 240, reserved: 0 });
  });

  it("a step's settle is written beside the next step; the run returns once every settle is", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const settled: number[] = [];
    const slowSettles: TokenBudget = {
      reserve: (r, n) => budgets.reserve(r, n),
      settle: async (held, n) => {
        await gate;
        await budgets.settle(held, n);
        settled.push(n);
      },
    };
    server.enqueue(toolCalls([{ name: "get_current_time" }]), answer("It is 10:00."));
    const { registry } = testRegistry(fixtureTools([]));
    let returned = false;
    // Metered as a run's models are (agent/model/models-for-run.ts): the settles are the run's to wait for.
    const models = meteredModels(
      { model: testModel(server), budget: slowSettles, logger: silentLogger() },
      { userId: "U0BESIDE", channelId: "C0BESIDE" },
    );
    expect(models.settled).toBeTypeOf("function");
    const running = runTurn(
      {
        run: { ...testRun, userId: "U0BESIDE", channelId: "C0BESIDE" },
        history: [],
        userMessage: "what time is it?",
      },
      { ...models, registry, logger: silentLogger() },
    ).then((r) => {
      returned = true;
      return r;
    });
    // The second step asked the model while the first step's settle was still waiting.
    await waitFor("the second model request", () => server.requests.length === 2);
    expect(settled).toEqual([]);
    expect(returned).toBe(false);
    release();
    const r = await running;
    expect(r.status).toBe("completed");
    expect(settled).toEqual([120, 120]);
    expect(await scopeRow(store, "user", "U0BESIDE")).toEqual({ used: 240, reserved: 0 });
  });

  it("counts an estimate when the server reports no usage", async () => {
    const { budget, sizes } = noting(budgets);
    const step = answer("Fine, thanks.") as { completion: Record<string, unknown> };
    server.enqueue({ completion: { ...step.completion, usage: undefined } });
    const { registry } = testRegistry([]);
    const asked: ModelRequest[] = [];
    const model = testModel(server, { maxOutputTokens: MAX_OUTPUT });
    const recording: ChatModel = {
      ...model,
      complete: (request) => {
        asked.push(request);
        return model.complete(request);
      },
    };
    await runTurn(
      { run: { ...testRun, userId: "U0NOUSAGE" }, history: [], userMessage: "how are you?" },
      { model: metered(recording, budget, { userId: "U0NOUSAGE" }), registry, logger: silentLogger() },
    );
    const { used, reserved } = await scopeRow(store, "user", "U0NOUSAGE");
    const prompt = historyTokens(asked[0]!.messages) + specsTokens(asked[0]!.tools);
    expect(reserved).toBe(0);
    // The prompt's tokens counted exactly, plus the answer's.
    expect(used).toBe(prompt + countTokens("Fine, thanks."));
    // What was held, once, was the prompt's bytes (an upper bound on its tokens) plus the most the
    // answer may take.
    expect(sizes).toHaveLength(1);
    expect(sizes[0]!).toBeGreaterThan(prompt + MAX_OUTPUT);
  });

  it("a call whose bytes bound does not fit is counted exactly and made when that fits", async () => {
    const { budget, sizes } = noting(budgets);
    const model = testModel(server, { maxOutputTokens: MAX_OUTPUT });
    // A budget too small for anything: both the bound and the exact count are asked for, and refused.
    await setLimit(budgets, { scope: "user", id: "U0EDGE", tokensPerDay: 100, by: "U0ADMIN" });
    const refused = await run("U0EDGE", "C0EDGE", "how are you?", model, [], budget);
    expect(refused.stopReason).toBe("budget");
    expect(sizes).toHaveLength(2);
    const [bound, exact] = sizes as [number, number];
    expect(exact).toBeLessThan(bound);
    expect(refused.answer).toContain(`needs up to ${exact.toLocaleString("en-US")} tokens`);

    // Room for the exact need but not the bound: the call is made, and holds only what it needs.
    sizes.length = 0;
    await setLimit(budgets, { scope: "user", id: "U0EDGE", tokensPerDay: exact, by: "U0ADMIN" });
    server.enqueue(answerCosting(exact - MAX_OUTPUT));
    const r = await run("U0EDGE", "C0EDGE", "how are you?", model, [], budget);
    expect(r.status).toBe("completed");
    expect(sizes).toEqual([bound, exact]);
    expect(await scopeRow(store, "user", "U0EDGE")).toEqual({ used: exact - MAX_OUTPUT, reserved: 0 });
  });

  it("a failed model call releases its reservation and counts nothing", async () => {
    server.enqueue({
      status: 400,
      body: { error: { message: "bad request", type: "invalid_request_error" } },
    });
    const r = await run("U0FAIL", "C0FAIL", "hello", testModel(server, { maxRetries: 0 }));
    expect(r.status).toBe("failed");
    expect(r.stopReason).toBe("model_error");
    expect(await scopeRow(store, "user", "U0FAIL")).toEqual({ used: 0, reserved: 0 });
    expect(await scopeRow(store, "channel", "C0FAIL")).toEqual({ used: 0, reserved: 0 });
  });

  it("over budget before the first call: the model is not asked, no tool runs, one sentence", async () => {
    await setLimit(budgets, { scope: "user", id: "U0TINY", tokensPerDay: 100, by: "U0ADMIN" });
    server.enqueue(toolCalls([{ name: "create_ticket", args: { title: "VPN down" } }]));
    const executions: Execution[] = [];
    const r = await run("U0TINY", "C0OPS", "open a ticket: VPN down", testModel(server), executions);
    expect(r).toMatchObject({ status: "stopped", stopReason: "budget", modelCalls: 0, steps: 0 });
    expect(r.answer).toMatch(
      /^This request needs up to [\d,]+ tokens, more than your whole daily token budget \(100 tokens\), so I did not start it\. An admin can raise it with \/hermes budget <@U0TINY> \S+\.$/,
    );
    expect(server.requests).toHaveLength(0);
    expect(executions).toEqual([]);
    expect(await scopeRow(store, "user", "U0TINY")).toEqual({ used: 0, reserved: 0 });
    expect(await scopeRow(store, "channel", "C0OPS")).toEqual({ used: 0, reserved: 0 });
  });

  it("over budget mid-run: the finished step stands, the next call is not made, the run stops", async () => {
    const { budget, sizes } = noting(budgets);
    const model = testModel(server, { maxOutputTokens: MAX_OUTPUT });
    // Learn the first call's exact size on a user with no room (the bytes bound is asked for, then
    // the exact count), then give U0MID room for that call and not for the next (each call reports
    // 120 tokens).
    await setLimit(budgets, { scope: "user", id: "U0PROBE2", tokensPerDay: 1, by: "U0ADMIN" });
    await run("U0PROBE2", "C0MID", "what time is it?", model, [], budget);
    expect(sizes).toHaveLength(2);
    const first = sizes[1]!;
    sizes.length = 0;
    await setLimit(budgets, { scope: "user", id: "U0MID", tokensPerDay: first + 100, by: "U0ADMIN" });
    server.enqueue(toolCalls([{ name: "get_current_time" }]), answer("It is 10:00."));
    const executions: Execution[] = [];
    const r = await run("U0MID", "C0MID", "what time is it?", model, executions, budget);
    expect(r).toMatchObject({ status: "stopped", stopReason: "budget", modelCalls: 1, steps: 1 });
    // Each call asked for its bytes bound, then its exact need: step 1's fit, step 2's did not.
    expect(sizes).toHaveLength(4);
    expect(sizes[1]).toBe(first);
    // Room after step 1 (limit - 120) is less than step 2 needs, which is within the limit itself.
    expect(sizes[3]!).toBeGreaterThan(first - 20);
    expect(sizes[3]!).toBeLessThanOrEqual(first + 100);
    const limit = (first + 100).toLocaleString("en-US");
    expect(r.answer).toMatch(
      new RegExp(
        `^You have used your daily token budget \\(${limit} tokens\\); it resets at 00:00 UTC\\. An admin can raise it with /hermes budget <@U0MID> [\\d.]+[km]?\\.$`,
      ),
    );
    expect(executions.map((e) => e.name)).toEqual(["get_current_time"]);
    expect(server.requests).toHaveLength(1); // the first step; the probe and the second were not sent
    expect(await scopeRow(store, "user", "U0MID")).toEqual({ used: 120, reserved: 0 });
  });

  it("a delegated sub-agent's calls are paid from its caller's budgets", async () => {
    const model = testModel(server);
    const { registry } = testRegistry(fixtureTools([]));
    registry.register(
      delegate({
        model,
        registry,
        logger: silentLogger(),
        budget: budgets,
        access: () => ({ allowed, policy: hook }),
      }),
    );
    const { hook, allowed } = createPolicy({ tools: registry.list(), level: "user" });
    server.enqueue(
      toolCalls([{ name: "delegate", args: { task: "what time is it?" } }]),
      answer("It is 10:00."), // the sub-agent
      answer("The sub-agent says 10:00."),
    );
    const r = await runTurn(
      { run: { ...testRun, userId: "U0DEL", channelId: "C0DEL" }, history: [], userMessage: "ask a helper" },
      {
        model: metered(model, budgets, { userId: "U0DEL", channelId: "C0DEL" }),
        registry,
        logger: silentLogger(),
        policy: hook,
      },
    );
    expect(r.status).toBe("completed");
    expect(server.requests).toHaveLength(3);
    expect(await scopeRow(store, "user", "U0DEL")).toEqual({ used: 360, reserved: 0 });
    expect(await scopeRow(store, "channel", "C0DEL")).toEqual({ used: 360, reserved: 0 });
  });

  it("a sub-agent delegated from a DM is paid from its requester's budget only, as the DM itself is", async () => {
    const model = testModel(server);
    const { registry } = testRegistry(fixtureTools([]));
    registry.register(
      delegate({
        model,
        registry,
        logger: silentLogger(),
        budget: budgets,
        access: () => ({ allowed, policy: hook }),
      }),
    );
    const { hook, allowed } = createPolicy({ tools: registry.list(), level: "user" });
    server.enqueue(
      toolCalls([{ name: "delegate", args: { task: "what time is it?" } }]),
      answer("It is 10:00."), // the sub-agent
      answer("The sub-agent says 10:00."),
    );
    const r = await runTurn(
      {
        run: { ...testRun, userId: "U0DMDEL", channelId: "D0DMDEL" },
        history: [],
        userMessage: "ask a helper",
      },
      {
        model: metered(model, budgets, { userId: "U0DMDEL", channelId: "D0DMDEL" }),
        registry,
        logger: silentLogger(),
        policy: hook,
      },
    );
    expect(r.status).toBe("completed");
    expect(await scopeRow(store, "user", "U0DMDEL")).toEqual({ used: 360, reserved: 0 });
    const dmRows = await execSql(store.handle.db, "SELECT 1 FROM token_usage WHERE scope_id = 'D0DMDEL'");
    expect(dmRows).toEqual([]);
  });

  it("a settle that fails once is tried again, so the reservation does not stay held", async () => {
    let failures = 0;
    const flaky: TokenBudget = {
      reserve: (r, n) => budgets.reserve(r, n),
      settle: async (r, n) => {
        if (failures++ === 0) throw new Error("connection terminated unexpectedly");
        return budgets.settle(r, n);
      },
    };
    server.enqueue(answer("Hi."));
    const r = await run("U0FLAKY", "C0FLAKY", "hello", testModel(server), [], flaky);
    expect(r.status).toBe("completed");
    expect(failures).toBe(2);
    expect(await scopeRow(store, "user", "U0FLAKY")).toEqual({ used: 120, reserved: 0 });
    expect(await scopeRow(store, "channel", "C0FLAKY")).toEqual({ used: 120, reserved: 0 });
  });

  it("no budget for a context summary: the run stops and the history is kept whole", async () => {
    await setLimit(budgets, { scope: "user", id: "U0LONG", tokensPerDay: 100, by: "U0ADMIN" });
    const long = (n: number) => `${"The VPN gateway log says the tunnel dropped again. ".repeat(40)}(${n})`;
    const history = Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? { role: "user" as const, content: long(i), author: "U0LONG" }
        : { role: "assistant" as const, content: long(i) },
    );
    const { registry } = testRegistry([]);
    const r = await runTurn(
      { run: { ...testRun, userId: "U0LONG" }, history, userMessage: "and now?" },
      {
        model: metered(testModel(server), budgets, { userId: "U0LONG" }),
        registry,
        logger: silentLogger(),
        limits: { contextBudgetTokens: 1000 },
      },
    );
    expect(r).toMatchObject({ status: "stopped", stopReason: "budget", modelCalls: 0 });
    expect(server.requests).toHaveLength(0);
    expect(r.messages.map((m) => m.content)).toEqual([
      ...history.map((m) => m.content),
      "and now?",
      r.answer, // the stop sentence, as every stop leaves it
    ]);
  });

  it("command mode asks no model, so an explicit command costs nothing", async () => {
    const executions: Execution[] = [];
    const r = await run("U0CMD", "C0CMD", "run get_current_time", createCommandModel(), executions);
    expect(r.status).toBe("completed");
    expect(executions.map((e) => e.name)).toEqual(["get_current_time"]);
    expect(await scopeRow(store, "user", "U0CMD")).toEqual({ used: 0, reserved: 0 });
  });
});
