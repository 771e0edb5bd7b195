import { describe, expect, it } from "vitest";
import { emptyUsage, type ToolCall } from "../../../src/agent/context/messages.ts";
import { createRunWrites, drainedAfter } from "../../../src/agent/run/checkpoint-writes.ts";
import { resumeRun, runTurn } from "../../../src/agent/run/loop.ts";
import type { ToolEvent } from "../../../src/agent/run/policy-hook.ts";
import type { RunSnapshot } from "../../../src/agent/run/snapshot.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import {
  type Execution,
  fixtureTools,
  inProcessModel,
  testRegistry,
  testRun,
} from "../../helpers/runtime.ts";

/** A promise settled from outside. */
function held<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every promise chain that can move, move (a few macrotask turns). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

const snap = (step: number): RunSnapshot => ({
  version: 1,
  run: { ...testRun, runId: "run_w" },
  messages: [],
  pending: [],
  step,
  usage: emptyUsage(),
  modelCalls: 0,
  failures: {},
  truncations: 0,
});

describe("a run's writes behind it (createRunWrites)", () => {
  it("checkpoints land one after another, each after the outcome records made before it", async () => {
    const log: string[] = [];
    const gates = new Map<number, ReturnType<typeof held<void>>>();
    const writes = createRunWrites(async (s) => {
      log.push(`write ${s.step}`);
      const gate = held();
      gates.set(s.step, gate);
      await gate.promise;
      log.push(`landed ${s.step}`);
    });
    writes.checkpointBehind(snap(1));
    const record = held<boolean>();
    writes.recordBehind(record.promise.then((ok) => void log.push(`recorded ${ok}`)));
    writes.checkpointBehind(snap(2));
    await settle();
    // The second is not written while the first is in flight (the same row: it would be overwritten).
    expect(log).toEqual(["write 1"]);
    gates.get(1)!.resolve();
    await settle();
    // Nor before the outcome record made before it has landed.
    expect(log).toEqual(["write 1", "landed 1"]);
    record.resolve(true);
    await settle();
    expect(log).toEqual(["write 1", "landed 1", "recorded true", "write 2"]);
    let drained = false;
    const drain = writes.drain().then(() => {
      drained = true;
    });
    await settle();
    expect(drained).toBe(false);
    gates.get(2)!.resolve();
    await drain;
    expect(log.at(-1)).toBe("landed 2");
  });

  it("a failed checkpoint fails every later one (nothing written after it) and the drain", async () => {
    const written: number[] = [];
    const writes = createRunWrites(async (s) => {
      written.push(s.step);
      if (s.step === 1) throw new Error("storage down");
    });
    writes.checkpointBehind(snap(1));
    await expect(writes.checkpoint(snap(2))).rejects.toThrow("storage down");
    await expect(writes.drain()).rejects.toThrow("storage down");
    expect(written).toEqual([1]);
  });

  it("drainedAfter: the result once everything landed; the body's own error, not a write's, when it threw", async () => {
    const gate = held();
    const writes = createRunWrites(() => gate.promise);
    writes.checkpointBehind(snap(1));
    let done = false;
    const run = drainedAfter(writes, async () => "answer").then((r) => {
      done = true;
      return r;
    });
    await settle();
    expect(done).toBe(false);
    gate.resolve();
    await expect(run).resolves.toBe("answer");

    const failing = createRunWrites(async () => {
      throw new Error("storage down");
    });
    failing.checkpointBehind(snap(1));
    await expect(
      drainedAfter(failing, async () => {
        throw new Error("model refused");
      }),
    ).rejects.toThrow("model refused");
    await expect(drainedAfter(failing, async () => "answer")).rejects.toThrow("storage down");
  });
});

const scriptedModel = inProcessModel;

/** An audit sink that notes each event once recorded; an executed call's outcome waits for `gate`. */
const auditHeldAt =
  (gate: Promise<unknown>, note: (e: ToolEvent) => void) =>
  async (e: ToolEvent): Promise<void> => {
    if (e.action === "tool.executed") await gate;
    note(e);
  };

/** `run`, with whether it has returned yet. */
function tracked<T>(run: Promise<T>) {
  const t = {
    returned: false,
    result: run.then((r) => {
      t.returned = true;
      return r;
    }),
  };
  return t;
}

const call = (id: string, title: string): ToolCall => ({
  id,
  name: "create_ticket",
  arguments: JSON.stringify({ title }),
});

describe("the loop's checkpoints and outcome records", () => {
  it("the next model call goes out while the after-calls checkpoint and the outcome record are in flight; the run returns once they landed, the outcome first", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const m = scriptedModel([{ toolCalls: [call("call_a", "VPN down")] }, { content: "Done." }]);
    const log: string[] = [];
    const outcome = held();
    const afterCalls = held();
    const run = tracked(
      runTurn(
        { run: { ...testRun, runId: "run_lag" }, history: [], userMessage: "open a ticket" },
        {
          model: m.model,
          registry,
          logger: silentLogger(),
          onToolEvent: auditHeldAt(outcome.promise, (e) => log.push(e.action)),
          checkpoint: async (s) => {
            const last = s.messages.at(-1)?.role;
            if (last === "tool") await afterCalls.promise;
            log.push(`checkpoint ${s.step} ${last}`);
          },
        },
      ),
    );
    await m.untilAsked(2);
    await settle();
    // The ticket was made and the model asked again; the result's record and checkpoint are not in.
    expect(executions).toHaveLength(1);
    // The write-ahead checkpoint and the call's request row land side by side (either first).
    const beforeCall = ["checkpoint 0 user", "checkpoint 1 assistant", "tool.requested"];
    expect([log[0], ...log.slice(1).sort()]).toEqual(beforeCall);
    expect(run.returned).toBe(false);
    afterCalls.resolve(); // the checkpoint is ready to land, but waits for the outcome's record
    await settle();
    expect(log).toHaveLength(3);
    expect(run.returned).toBe(false);
    outcome.resolve();
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(log.slice(3)).toEqual(["tool.executed", "checkpoint 1 tool"]);
  });

  it("the first model call goes out before the run's first checkpoint lands; no call runs before the checkpoint that knows of it", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const m = scriptedModel([{ toolCalls: [call("call_b", "Printer")] }, { content: "Done." }]);
    const first = held();
    const writeAhead = held();
    const run = runTurn(
      { run: { ...testRun, runId: "run_first" }, history: [], userMessage: "open a ticket" },
      {
        model: m.model,
        registry,
        logger: silentLogger(),
        checkpoint: async (s) => {
          if (s.step === 0) await first.promise;
          else if (s.messages.at(-1)?.role === "assistant") await writeAhead.promise;
        },
      },
    );
    await m.untilAsked(1);
    await settle();
    first.resolve();
    await settle();
    expect(m.asked()).toBe(1);
    expect(executions).toEqual([]); // its checkpoint is still in flight
    writeAhead.resolve();
    expect((await run).status).toBe("completed");
    expect(executions.map((e) => e.args.title)).toEqual(["Printer"]);
  });

  it("a step's request rows are written while its write-ahead checkpoint lands; its calls run only after it", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const m = scriptedModel([{ toolCalls: [call("call_f", "Fan loud")] }, { content: "Done." }]);
    const writeAhead = held();
    const log: string[] = [];
    const run = runTurn(
      { run: { ...testRun, runId: "run_overlap" }, history: [], userMessage: "open a ticket" },
      {
        model: m.model,
        registry,
        logger: silentLogger(),
        onToolEvent: async (e) => void log.push(e.action),
        checkpoint: async (s) => {
          if (s.messages.at(-1)?.role === "assistant") await writeAhead.promise;
          log.push(`checkpoint ${s.messages.at(-1)?.role}`);
        },
      },
    );
    while (!log.includes("tool.requested")) await settle();
    await settle();
    expect(log).not.toContain("checkpoint assistant");
    expect(executions).toEqual([]);
    writeAhead.resolve();
    expect((await run).status).toBe("completed");
    expect(executions.map((e) => e.args.title)).toEqual(["Fan loud"]);
    expect(log.indexOf("checkpoint assistant")).toBeLessThan(log.indexOf("tool.executed"));
  });

  it("a write-ahead checkpoint that fails: no call runs, and the run fails with it", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const m = scriptedModel([{ toolCalls: [call("call_g", "Light out")] }, { content: "Done." }]);
    const log: string[] = [];
    const run = runTurn(
      { run: { ...testRun, runId: "run_ahead_fails" }, history: [], userMessage: "open a ticket" },
      {
        model: m.model,
        registry,
        logger: silentLogger(),
        onToolEvent: async (e) => void log.push(e.action),
        checkpoint: async (s) => {
          if (s.messages.at(-1)?.role === "assistant") throw new Error("storage down");
        },
      },
    );
    await expect(run).rejects.toThrow("storage down");
    expect(executions).toEqual([]);
    expect(log).not.toContain("tool.executed");
    expect(m.asked()).toBe(1);
  });

  it("a step that pauses for approval returns only once the outcome of its call that ran has landed (no checkpoint follows it)", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const m = scriptedModel([
      {
        toolCalls: [
          call("call_d", "Door stuck"),
          { id: "call_e", name: "search_tickets", arguments: JSON.stringify({ query: "door" }) },
        ],
      },
    ]);
    const outcome = held();
    const recorded: string[] = [];
    const run = tracked(
      runTurn(
        { run: { ...testRun, runId: "run_pause" }, history: [], userMessage: "ticket and search" },
        {
          model: m.model,
          registry,
          logger: silentLogger(),
          policy: ({ tool }) =>
            tool.name === "search_tickets"
              ? { action: "needs_approval", reason: "test" }
              : { action: "allow" },
          onToolEvent: auditHeldAt(outcome.promise, (e) => recorded.push(`${e.action} ${e.tool}`)),
          checkpoint: async () => undefined,
        },
      ),
    );
    await m.untilAsked(1);
    while (executions.length === 0) await settle();
    await settle();
    expect(run.returned).toBe(false);
    outcome.resolve();
    const result = await run.result;
    expect(result.status).toBe("paused");
    expect(recorded).toContain("tool.executed create_ticket");
  });

  it("a resume drains too: an approved call's outcome and the checkpoint after it land before it returns", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const m = scriptedModel([{ content: "Sent." }]);
    const log: string[] = [];
    const outcome = held();
    const snapshot: RunSnapshot = {
      ...snap(1),
      run: { ...testRun, runId: "run_resume" },
      messages: [
        { role: "user", content: "open a ticket" },
        { role: "assistant", content: "", toolCalls: [call("call_c", "Badge reader")] },
      ],
      pending: [
        {
          callId: "call_c",
          tool: "create_ticket",
          args: { title: "Badge reader" },
          argsSha256: "",
        },
      ],
      modelCalls: 1,
    };
    const { argsSha256 } = await import("../../../src/core/args-hash.ts");
    snapshot.pending[0]!.argsSha256 = argsSha256("create_ticket", { title: "Badge reader" });
    const run = tracked(
      resumeRun(
        snapshot,
        { call_c: { status: "approved", by: "U0ADMIN" } },
        {
          model: m.model,
          registry,
          logger: silentLogger(),
          onToolEvent: auditHeldAt(outcome.promise, (e) => log.push(e.action)),
          checkpoint: async (s) => void log.push(`checkpoint ${s.messages.at(-1)?.role}`),
        },
      ),
    );
    await m.untilAsked(1);
    await settle();
    expect(executions).toHaveLength(1);
    expect(run.returned).toBe(false);
    expect(log).toEqual([]);
    outcome.resolve();
    expect((await run.result).status).toBe("completed");
    expect(log).toEqual(["tool.executed", "checkpoint tool"]);
  });
});
