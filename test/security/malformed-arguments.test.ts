import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { countTokens, preloadTokenizer } from "../../src/agent/context/token-count.ts";
import { normalizeAssistantMessage } from "../../src/agent/model/normalize-response.ts";
import { toolFormatContext } from "../../src/agent/model/tool-formats/context.ts";
import { CALL_MARKERS } from "../../src/agent/model/tool-formats/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { createMemoryResultStore } from "../../src/tools/result-store.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { adversarialArguments, adversarialContents, leastCpuMs, threadCpuMs } from "./adversarial-strings.ts";

/** The event loop may be held by our own work for at most this long. */
const STALL_MS = 100;

const ticketLike = defineTool({
  name: "create_ticket",
  description: "d",
  input: z.object({
    title: z.string().min(1),
    tags: z.array(z.string()).optional(),
    priority: z.enum(["low", "high"]).optional(),
  }),
  execute: (a) => a,
});

describe("no argument text blocks the event loop", () => {
  const registry = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() }).register(
    ticketLike,
  );

  it.each(adversarialArguments())("$name: parsed, repaired or refused within the bound", ({ text }) => {
    let prepared: ReturnType<typeof registry.prepare> | undefined;
    // CPU time, not wall-clock: it is what the work costs, whatever else the machine runs.
    const ms = leastCpuMs(() => {
      prepared = registry.prepare({ id: "c1", name: "create_ticket", arguments: text });
    });
    expect(ms).toBeLessThan(STALL_MS);
    expect(prepared).toBeDefined();
    if (!prepared!.ok) {
      // A sentence the model can act on, never a stack or an engine message about the stack.
      expect(prepared!.error).toMatch(/create_ticket/);
      expect(prepared!.error).not.toMatch(/call stack|\n\s+at /);
      expect(prepared!.error.length).toBeLessThan(2000);
    }
  });

  it("oversized and over-nested arguments are refused with a reason the model can fix", () => {
    const long = registry.prepare({
      id: "c",
      name: "create_ticket",
      arguments: `{"title":"${"x".repeat(300_000)}"}`,
    });
    expect(!long.ok && long.error).toMatch(/at most 262144 are accepted/);
    const deep = registry.prepare({ id: "c", name: "create_ticket", arguments: "[".repeat(20_000) });
    expect(!deep.ok && deep.error).toMatch(/nest deeper than 64 levels/);
    // Valid JSON within the size cap still parses; short broken JSON is still repaired.
    const big = registry.prepare({
      id: "c",
      name: "create_ticket",
      arguments: JSON.stringify({ title: "y".repeat(200_000) }),
    });
    expect(big.ok).toBe(true);
    const fenced = registry.prepare({
      id: "c",
      name: "create_ticket",
      arguments: "```json\n{'title': 'VPN down', priority: 'HIGH',}\n```",
    });
    expect(fenced.ok && fenced.args).toEqual({ title: "VPN down", priority: "high" });
  });

  const ctx = toolFormatContext([
    { name: "create_ticket", description: "", parameters: { type: "object", properties: {} } },
  ]);
  it.each(adversarialContents(CALL_MARKERS))(
    "$name: every text format, reasoning split and name lookup stay linear",
    ({ text }) => {
      // As content, and as a reasoning field (calls are looked for there too).
      const ms = leastCpuMs(() => {
        normalizeAssistantMessage({ content: text }, "stop", ctx);
        normalizeAssistantMessage({ content: "", reasoning_content: text }, "length", ctx);
      });
      expect(ms).toBeLessThan(STALL_MS);
    },
  );

  it("token counting is bounded for one huge word, mixed scripts and megabyte messages", () => {
    // A process that runs turns loads the tokenizer at start-up; the cost measured here is per text.
    preloadTokenizer();
    for (const text of [
      "a".repeat(39_000),
      "x9é中".repeat(30_000),
      "word ".repeat(200_000),
      "z".repeat(2_000_000),
    ]) {
      let n = 0;
      const ms = leastCpuMs(() => {
        n = countTokens(text);
      });
      expect(ms).toBeLessThan(STALL_MS);
      expect(n).toBeGreaterThan(0);
    }
    // Ordinary text is counted exactly as before.
    expect(countTokens("The VPN gateway in Berlin dropped connections at 09:14.")).toBe(13);
  });
});

describe("hostile arguments through the running app: /healthz keeps answering", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
    // The tokenizer's one-time load on a process's first exact count (token-count.ts) is not what
    // this measures: the work each hostile argument costs is.
    preloadTokenizer();
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  /**
   * One turn whose assistant message holds every adversarial argument as a call, while /healthz is
   * probed back to back (every probe must answer 200). How long the event loop is held is measured
   * per turn of the loop: a 5 ms timer's ticks, and the wall time and this thread's CPU between two of
   * them (one turn of the loop: the timers, every I/O callback that was ready, the microtasks). A turn
   * counts as held only if it was both slow and burned CPU for that long: a busy machine delays the
   * timer without our loop being held, and then the CPU figure stays small (V8's background GC and
   * compiler threads are not counted: they do not hold the loop). A probe's own window is not the
   * measure: /healthz asks Postgres and Redis, so it spans several turns of the loop and adds up
   * separate pieces of work.
   */
  async function flood(cases: ReturnType<typeof adversarialArguments>) {
    // One assistant message with every call (parallel calls): each gets its own outcome.
    model.enqueue(toolCalls(cases.map((c) => ({ name: "create_ticket", args: c.text }))));
    const turns: Array<{ ms: number; cpu: number }> = [];
    let lastWall = performance.now();
    let lastCpu = threadCpuMs();
    const ticker = setInterval(() => {
      const wall = performance.now();
      const cpu = threadCpuMs();
      turns.push({ ms: wall - lastWall, cpu: cpu - lastCpu });
      lastWall = wall;
      lastCpu = cpu;
    }, 5);
    const probes: Array<{ ms: number; cpu: number; status: number }> = [];
    let done = false;
    const prober = (async () => {
      while (!done) {
        const cpu0 = threadCpuMs();
        const t0 = performance.now();
        const status = await fetch(`http://127.0.0.1:${t.hermes.port}/healthz`).then(
          async (res) => {
            await res.arrayBuffer();
            return res.status;
          },
          () => 0,
        );
        probes.push({ ms: performance.now() - t0, cpu: threadCpuMs() - cpu0, status });
      }
    })();
    let threadTs: string;
    try {
      const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> file it" });
      threadTs = d.message!.ts;
      // Three failures of one tool in a row end the run with a sentence saying so.
      const reply = await waitFor(
        () =>
          (t.thread("C0OPS", threadTs) ?? []).find((m) =>
            /I stopped because the tool create_ticket failed 3 times/.test(m.text),
          ),
        120_000,
        "the run's closing sentence",
      );
      expect(reply.text).not.toMatch(/\n\s+at |RangeError|call stack/);
      expect(reply.text.length).toBeLessThan(1000);
    } finally {
      done = true;
      clearInterval(ticker);
      await prober;
    }
    expect(probes.length).toBeGreaterThan(5);
    expect(probes.filter((p) => p.status !== 200)).toEqual([]);
    expect(turns.length).toBeGreaterThan(5);
    const held = turns.filter((p) => Math.min(p.ms, p.cpu) >= STALL_MS);
    const longest = Math.max(...turns.map((p) => Math.min(p.ms, p.cpu)));
    const worst = Math.max(...probes.map((p) => p.ms));
    const busiest = Math.max(...probes.map((p) => p.cpu));
    console.log(
      `loop turns: ${turns.length}, longest held ${longest.toFixed(1)} ms; healthz probes: ${probes.length}, slowest ${worst.toFixed(1)} ms wall clock, most loop CPU in one probe window ${busiest.toFixed(1)} ms`,
    );
    return { held, threadTs };
  }

  it("every adversarial argument fails cleanly and audited, while /healthz answers throughout", {
    timeout: 240_000,
  }, async () => {
    const cases = adversarialArguments();
    // The same work costs the same each time; a host stall while this thread runs is counted as its
    // CPU time on this nested-virtualization machine (see leastCpuMs). So, as for the per-text bounds
    // above, the least of two floods is the measure: a held turn must show up in both.
    let run = await flood(cases);
    if (run.held.length > 0) {
      console.log(`held once (${JSON.stringify(run.held)}): flooding again`);
      run = await flood(cases);
    }
    expect(run.held).toEqual([]);

    // Each call is a request that failed on its arguments: audited, nothing executed.
    expect(run.threadTs).toMatch(/^\d+\.\d+$/);
    const rows = await execSql<{ action: string; n: number }>(
      t.hermes.services.storage.db.db,
      `SELECT action, count(*)::int AS n FROM audit_log WHERE tool = 'create_ticket' AND thread_ts = '${run.threadTs}' GROUP BY action`,
    );
    const byAction = Object.fromEntries(rows.map((r) => [r.action, r.n]));
    expect(byAction["tool.requested"]).toBe(cases.length);
    expect(byAction["tool.failed"]).toBe(cases.length);
    expect(byAction["tool.executed"]).toBeUndefined();
    // The audit row keeps a capped preview of text that did not parse, never the megabyte itself.
    const sizes = await execSql<{ n: number }>(
      t.hermes.services.storage.db.db,
      "SELECT max(length(args::text))::int AS n FROM audit_log WHERE tool = 'create_ticket'",
    );
    expect(sizes[0]!.n).toBeLessThan(1000);
  });
});
