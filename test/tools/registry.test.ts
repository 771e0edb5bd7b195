import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { silentLogger } from "../../src/core/logger.ts";
import type { RunIdentity } from "../../src/core/run-identity.ts";
import { capResult } from "../../src/tools/cap-result.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { fetchResult } from "../../src/tools/fetch-result.ts";
import { getCurrentTime } from "../../src/tools/get-current-time.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { createMemoryResultStore } from "../../src/tools/result-store.ts";

const run: RunIdentity = { runId: "r1", sessionKey: "T1:C1:1.1", userId: "U1" };
const ctx = (callId = "c1") => ({
  run,
  callId,
  signal: new AbortController().signal,
  logger: silentLogger(),
});
const call = (name: string, args: string) => ({ id: "c1", name, arguments: args });

const schemaTool = defineTool({
  name: "plan",
  description: "d",
  input: z.object({
    title: z.string(),
    count: z.number().int().optional(),
    ratio: z.number().optional(),
    urgent: z.boolean().optional(),
    level: z.enum(["Low", "High"]).optional(),
    tags: z.array(z.string()).optional(),
    ref: z.string().optional(),
    nested: z.object({ on: z.boolean(), n: z.number().int() }).optional(),
    maybe: z.string().nullable().optional(),
  }),
  execute: (a) => a,
});

function registry() {
  const results = createMemoryResultStore();
  return { results, reg: new ToolRegistry({ results, logger: silentLogger() }).register(schemaTool) };
}

describe("ToolRegistry.prepare: repair → coerce → validate", () => {
  it("coerces only safe scalars and reports each change", () => {
    const { reg } = registry();
    const p = reg.prepare(
      call(
        "plan",
        `{"title": "t", "count": "5", "ratio": "0.5", "urgent": "TRUE", "level": "high", "ref": 42, "nested": {"on": "false", "n": "3", "x": 1}, "tags": "[\\"a\\"]"}`,
      ),
    );
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    expect(p.args).toEqual({
      title: "t",
      count: 5,
      ratio: 0.5,
      urgent: true,
      level: "High",
      ref: "42",
      nested: { on: false, n: 3 },
      tags: ["a"],
    });
    expect(p.notes.dropped).toEqual(["nested.x"]);
    expect(p.notes.coerced).toHaveLength(8);
  });

  it("does not coerce what is not safe", () => {
    const { reg } = registry();
    for (const [args, path] of [
      [`{"title": "t", "count": "5.5"}`, "count"],
      [`{"title": "t", "count": "five"}`, "count"],
      [`{"title": "t", "urgent": "yes"}`, "urgent"],
      [`{"title": "t", "level": "medium"}`, "level"],
      [`{"title": ["t"]}`, "title"],
      [`{"title": null}`, "title"],
    ] as const) {
      const p = reg.prepare(call("plan", args));
      expect(p.ok, args).toBe(false);
      if (!p.ok) expect(p.error).toMatch(new RegExp(`- ${path}: `));
    }
  });

  it("drops null for optional fields but keeps it where null is allowed", () => {
    const { reg } = registry();
    const p = reg.prepare(call("plan", `{"title": "t", "count": null, "maybe": null}`));
    expect(p.ok && p.args).toEqual({ title: "t", maybe: null });
    expect(p.ok && p.notes.nulls).toEqual(["count"]);
  });

  it("accepts double-encoded JSON and Python literals", () => {
    const { reg } = registry();
    const p = reg.prepare(call("plan", JSON.stringify(JSON.stringify({ title: "t", urgent: true }))));
    expect(p.ok && p.args).toEqual({ title: "t", urgent: true });
    const q = reg.prepare(call("plan", "{'title': 'x', 'urgent': False, 'maybe': None}"));
    expect(q.ok && q.args).toEqual({ title: "x", urgent: false, maybe: null });
  });

  it("refuses arguments that are not an object, and unknown tools, with a sentence for the model", () => {
    const { reg } = registry();
    const p = reg.prepare(call("plan", `["t"]`));
    expect(!p.ok && p.error).toBe(
      "The arguments for plan must be one JSON object with named fields, not an array.",
    );
    const u = reg.prepare(call("nope", "{}"));
    expect(!u.ok && u.kind).toBe("unknown_tool");
    expect(!u.ok && u.error).toBe('There is no tool named "nope". The tools you can call are: plan.');
    // A registered tool the user may not use is a denial for policy to audit, not an unknown name;
    // its arguments get no validation help.
    const hidden = reg.prepare(call("plan", `{"count":"x"}`), new Set(["other"]));
    expect(!hidden.ok && hidden.kind).toBe("not_permitted");
    // An unknown name lists only what the requester may call.
    const unknown = reg.prepare(call("nope", "{}"), new Set(["other"]));
    expect(!unknown.ok && unknown.error).toBe(
      'There is no tool named "nope". The tools you can call are: other.',
    );
  });

  it("refuses a duplicate tool name", () => {
    const { reg } = registry();
    expect(() => reg.register(schemaTool)).toThrow(/Two tools are named "plan"/);
  });

  it("gives the model an input JSON Schema from zod", () => {
    const { reg } = registry();
    const [spec] = reg.specs();
    expect(spec!.parameters).toMatchObject({
      type: "object",
      required: ["title"],
      additionalProperties: false,
    });
    expect(spec!.parameters).not.toHaveProperty("$schema");
  });
});

describe("ToolRegistry.execute", () => {
  it("caps long results, keeps head and tail, and stores the full text for fetch_result", async () => {
    const results = createMemoryResultStore();
    const long = `${"A".repeat(3000)}MIDDLE${"Z".repeat(3000)}`;
    const big = defineTool({
      name: "big",
      description: "d",
      input: z.object({}),
      maxResultChars: 1000,
      execute: () => long,
    });
    const reg = new ToolRegistry({ results, logger: silentLogger() }).register(big, fetchResult(results));
    const r = await reg.execute(big, {}, ctx());
    expect(r.ok).toBe(true);
    expect(r.content.length).toBeLessThanOrEqual(1000);
    expect(r.content.startsWith("AAAA")).toBe(true);
    expect(r.content.endsWith("ZZZZ")).toBe(true);
    expect(r.content).toMatch(/\[\d+ of 6006 characters cut; full result: fetch_result ref="res_[\w-]+"/);
    expect(r.fullLength).toBe(6006);
    const fetchTool = reg.get("fetch_result")!;
    const page = await reg.execute(fetchTool, { ref: r.resultRef, offset: 2990, length: 30 }, ctx("c2"));
    expect(page.content).toContain("AAAAAAAAAAMIDDLEZZZZ");
    expect(page.content).toContain("characters 2990–3020 of 6006. Next: offset=3020.");
    // Another conversation cannot read it.
    const other = await reg.execute(
      fetchTool,
      { ref: r.resultRef },
      { ...ctx("c3"), run: { ...run, sessionKey: "T1:C9:2.2" } },
    );
    expect(other.ok).toBe(false);
    expect(other.content).toContain("No stored result");
  });

  it("limits concurrency per tool", async () => {
    let running = 0;
    let peak = 0;
    const slow = defineTool({
      name: "slow",
      description: "d",
      input: z.object({}),
      concurrency: 2,
      execute: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 30));
        running--;
        return "ok";
      },
    });
    const reg = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() }).register(
      slow,
    );
    await Promise.all(Array.from({ length: 6 }, (_, i) => reg.execute(slow, {}, ctx(`c${i}`))));
    expect(peak).toBe(2);
  });

  it("a call cancelled while it waits for a concurrency slot never starts, and ends when the slot frees", async () => {
    let release!: () => void;
    const started: string[] = [];
    const gate = defineTool({
      name: "gate",
      description: "d",
      input: z.object({ id: z.string() }),
      concurrency: 1,
      timeoutMs: 60_000,
      execute: async ({ id }) => {
        started.push(id);
        if (id === "first") await new Promise<void>((r) => (release = r));
        return id;
      },
    });
    const reg = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() }).register(
      gate,
    );
    const first = reg.execute(gate, { id: "first" }, ctx("a"));
    const turn = new AbortController();
    const queued = reg.execute(gate, { id: "queued" }, { ...ctx("b"), signal: turn.signal });
    await vi.waitFor(() => expect(started).toEqual(["first"]));
    turn.abort(new Error("turn cancelled"));
    release();
    expect((await first).ok).toBe(true);
    const r = await queued;
    expect(r).toMatchObject({ ok: false, content: "Error from gate: cancelled" });
    expect(started).toEqual(["first"]);
  });

  it("serializes objects compactly and says so when a tool returns nothing", async () => {
    const reg = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() });
    const none = defineTool({
      name: "none",
      description: "d",
      input: z.object({}),
      execute: () => undefined,
    });
    const obj = defineTool({
      name: "obj",
      description: "d",
      input: z.object({}),
      execute: () => ({ a: 1, b: [1, 2] }),
    });
    const big = defineTool({
      name: "big",
      description: "d",
      input: z.object({}),
      execute: () => ({ id: 2n ** 70n, at: new Date(0), n: 1 }),
    });
    const cyclic = defineTool({
      name: "cyclic",
      description: "d",
      input: z.object({}),
      execute: () => {
        const o: Record<string, unknown> = { a: 1 };
        o.self = o;
        return o;
      },
    });
    reg.register(none, obj, big, cyclic);
    expect((await reg.execute(none, {}, ctx())).content).toBe("(no output)");
    expect((await reg.execute(obj, {}, ctx())).content).toBe('{"a":1,"b":[1,2]}');
    // A bigint is written as its digits; what JSON cannot write at all is described, not thrown.
    expect((await reg.execute(big, {}, ctx())).content).toBe(
      '{"id":"1180591620717411303424","at":"1970-01-01T00:00:00.000Z","n":1}',
    );
    expect((await reg.execute(cyclic, {}, ctx())).content).toBe("[object Object]");
  });

  it("get_current_time uses the requester's time zone, and refuses an unknown one", async () => {
    const tool = getCurrentTime(() => new Date("2026-11-29T10:00:00Z"));
    const reg = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() }).register(
      tool,
    );
    const r = await reg.execute(tool, {}, { ...ctx(), run: { ...run, timezone: "Asia/Shanghai" } });
    expect(JSON.parse(r.content)).toMatchObject({
      timezone: "Asia/Shanghai",
      iso_utc: "2026-11-29T10:00:00.000Z",
    });
    expect(JSON.parse(r.content).local).toContain("18:00:00");
    const bad = await reg.execute(tool, { timezone: "Mars/Olympus" }, ctx());
    expect(bad.content).toBe(
      'Error from get_current_time: Unknown time zone "Mars/Olympus". Use an IANA name like Europe/Berlin.',
    );
    expect(bad.attempts).toBe(1); // a deliberate refusal is not retried
  });
});

describe("ToolRegistry.replaceSource (MCP servers whose tool lists change)", () => {
  const tool = (name: string, input = z.object({})) =>
    defineTool({ name, description: name, input, execute: () => name });

  it("replaces only the source's tools, and the specs follow at once", () => {
    const reg = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() });
    reg.register(tool("get_current_time"));
    reg.replaceSource("mcp", [tool("mcp_a_one"), tool("mcp_a_two")]);
    expect(reg.specs().map((s) => s.name)).toEqual(["get_current_time", "mcp_a_one", "mcp_a_two"]);
    reg.replaceSource("mcp", [tool("mcp_a_two", z.object({ x: z.number() })), tool("mcp_a_three")]);
    expect(reg.names()).toEqual(["get_current_time", "mcp_a_two", "mcp_a_three"]);
    const specs = reg.specs();
    expect(specs.map((s) => s.name)).toEqual(["get_current_time", "mcp_a_two", "mcp_a_three"]);
    // The replaced tool's new schema, not a cached old one.
    expect(specs[1]!.parameters).toMatchObject({ properties: { x: { type: "number" } } });
    expect(reg.prepare(call("mcp_a_one", "{}"))).toMatchObject({ ok: false, kind: "unknown_tool" });
    reg.replaceSource("mcp", []);
    expect(reg.names()).toEqual(["get_current_time"]);
  });

  it("never takes another tool's name, and a refused list changes nothing", () => {
    const reg = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() });
    reg.register(tool("get_current_time"));
    reg.replaceSource("mcp", [tool("mcp_a_one")]);
    expect(() => reg.replaceSource("mcp", [tool("mcp_a_two"), tool("get_current_time")])).toThrow(
      /Two tools are named "get_current_time"/,
    );
    expect(() => reg.replaceSource("mcp", [tool("mcp_a_two"), tool("mcp_a_two")])).toThrow(/mcp_a_two/);
    expect(() => reg.replaceSource("other", [tool("mcp_a_one")])).toThrow(/mcp_a_one/);
    expect(reg.names()).toEqual(["get_current_time", "mcp_a_one"]);
    expect(() => reg.register(tool("mcp_a_one"))).toThrow(/mcp_a_one/);
  });
});

describe("capResult", () => {
  it("never exceeds the cap and reports what it cut", () => {
    for (const len of [10, 999, 1000, 1001, 50_000]) {
      const { text, cut } = capResult("x".repeat(len), 1000, "res_1");
      expect(text.length).toBeLessThanOrEqual(1000);
      expect(cut).toBe(len <= 1000 ? 0 : len - (text.length - text.match(/\n….*…\n/)![0].length));
    }
  });
});
