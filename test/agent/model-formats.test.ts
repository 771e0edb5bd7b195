import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runTurn } from "../../src/agent/run/loop.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { defineTool, type Tool } from "../../src/tools/define-tool.ts";
import { type Execution, fixtureTools, testModel, testRegistry, testRun } from "../helpers/runtime.ts";
import { answer, type RecordedRequest, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

/**
 * The model-format corpus (test/fixtures/model-formats/*.jsonl): one real response body per case, written
 * from each family's own sources (parser tests, chat templates, model docs) with the server's tool parser
 * off, so the calls are text in `content` / `reasoning_content` / `reasoning`. Every case goes over HTTP
 * through the real SDK into `runTurn`; what runs and what goes back to the model is asserted.
 */

interface CorpusCase {
  case: string;
  family: string;
  source: string;
  note: string;
  completion: { choices: Array<{ message: Record<string, unknown> }> } & Record<string, unknown>;
  expect: {
    calls: Execution[];
    answer_contains?: string;
    answer_excludes?: string[];
    reasked?: boolean;
    reasoning_excluded?: string[];
  };
}

const dir = new URL("../fixtures/model-formats/", import.meta.url);
const cases: CorpusCase[] = readdirSync(dir)
  .filter((f) => f.endsWith(".jsonl"))
  .sort()
  .flatMap((f) =>
    readFileSync(new URL(f, dir), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as CorpusCase),
  );

const callCases = cases.filter((c) => c.expect.calls.length > 0);
const answerCases = cases.filter((c) => c.expect.calls.length === 0 && !c.expect.reasked);
const reaskedCases = cases.filter((c) => c.expect.reasked);

/** The fixture tools plus `schedule_check` (typed values for XML and pythonic cases); every execution is recorded. */
function corpusTools(executions: Execution[]): Tool[] {
  return [
    ...fixtureTools(executions),
    defineTool({
      name: "schedule_check",
      description: "Schedule a recurring check.",
      input: z.object({
        minutes: z.number().int(),
        notify: z.boolean(),
        channels: z.array(z.string()),
        meta: z.record(z.string(), z.unknown()).optional(),
      }),
      execute: (args) => {
        executions.push({ name: "schedule_check", args });
        return { ok: true };
      },
    }),
  ];
}

/** Call syntax of every family: none of it may reach the history we send back. */
const CALL_MARKUP = [
  "<tool_call",
  "</tool_call",
  "<tool_calls",
  "<function=",
  "<function_call>",
  "<parameter",
  "<invoke",
  "minimax:tool_call",
  "DSML",
  "<arg_key",
  "<arg_value",
  "[TOOL_CALLS]",
  "[ARGS]",
  "[TOOL_REQUEST]",
  "[END_TOOL_REQUEST]",
  "[THINK]",
  "functools[",
  "```tool_code",
  "<|",
  "|>",
  "<｜",
  "｜>",
  "<channel|>",
  "to=functions.",
  "assistantcommentary",
  "assistantfinal",
  '{"name"',
  '"arguments"',
  '"parameters"',
  '"_name"',
  '"tool_calls"',
  '"tool_call"',
  "<think>",
  "</think>",
];

/** What must never show in an answer: reasoning delimiters and special tokens. */
const ANSWER_MARKUP = [
  "<think>",
  "</think>",
  "[THINK]",
  "<|",
  "|>",
  "<｜",
  "<channel|>",
  "<tool_call>",
  "[TOOL_CALLS]",
  "assistantfinal",
];

/** The reasoning a case carries: its reasoning fields, <think> blocks, and what the fixture names. */
function reasoningTexts(fx: CorpusCase): string[] {
  const message = fx.completion.choices[0]!.message;
  const out = [...(fx.expect.reasoning_excluded ?? [])];
  for (const key of ["reasoning_content", "reasoning"]) {
    const v = message[key];
    if (typeof v === "string" && v.trim()) out.push(v);
  }
  const content = typeof message.content === "string" ? message.content : "";
  const close = content.indexOf("</think>");
  if (close >= 0) {
    const open = content.lastIndexOf("<think>", close);
    out.push(content.slice(open >= 0 ? open + "<think>".length : 0, close));
  }
  // A distinctive head of each: a leak of any of them shows at its start.
  return out.map((t) => t.trim().slice(0, 40)).filter((t) => t.length >= 8);
}

function leaks(text: string, fx: CorpusCase, markup: string[]): string[] {
  const found = markup.filter((m) => text.includes(m));
  for (const r of reasoningTexts(fx)) if (text.includes(r)) found.push(`reasoning: ${r}`);
  return found;
}

type Message = RecordedRequest["body"]["messages"][number];

/** The history the second request carries must be one an OpenAI-compatible server accepts. */
function assertCallsSentBack(second: Message[], fx: CorpusCase) {
  const at = second.findIndex((m) => m.role === "assistant" && m.tool_calls && m.tool_calls.length > 0);
  expect(at, "an assistant message with tool_calls").toBeGreaterThanOrEqual(0);
  const assistant = second[at]!;
  const sent = assistant.tool_calls!;
  expect(sent).toHaveLength(fx.expect.calls.length);
  for (const c of sent) {
    expect(typeof c.id === "string" && c.id.length > 0).toBe(true);
    expect((c as { type?: string }).type).toBe("function");
    expect(() => JSON.parse(c.function.arguments)).not.toThrow();
  }
  const ids = sent.map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  const results = second.slice(at + 1, at + 1 + ids.length);
  expect(results.map((m) => m.role)).toEqual(ids.map(() => "tool"));
  expect(results.map((m) => m.tool_call_id)).toEqual(ids);
  const content = typeof assistant.content === "string" ? assistant.content : "";
  const callSyntax = fx.expect.calls.map((c) => `${c.name}(`);
  expect(leaks(content, fx, [...CALL_MARKUP, ...callSyntax])).toEqual([]);
}

describe("model-format corpus (test/fixtures/model-formats) served over HTTP", () => {
  const server = new ScriptedModelServer();
  const ran = new Set<string>();
  const held = new Set<string>();
  beforeAll(() => server.start());
  afterAll(async () => {
    await server.stop();
    // The share of the corpus whose expectation held (of the cases that ran, under a -t filter).
    const failed = cases
      .filter((c) => ran.has(c.case) && !held.has(c.case))
      .map((c) => `${c.family}/${c.case}`);
    const pct = ran.size ? ((100 * held.size) / ran.size).toFixed(1) : "0";
    console.log(
      `model-format corpus: ${held.size}/${ran.size} cases held (${pct}%)` +
        (ran.size < cases.length ? ` — ${ran.size} of ${cases.length} ran` : "") +
        (failed.length ? `; not held: ${failed.join(", ")}` : ""),
    );
  });
  beforeEach(() => server.reset());

  const turn = (executions: Execution[], fx: CorpusCase) => {
    ran.add(fx.case);
    const { registry } = testRegistry(corpusTools(executions));
    return runTurn(
      { run: testRun, history: [], userMessage: "The VPN drops every 10 minutes, please sort it out." },
      { model: testModel(server), registry, logger: silentLogger() },
    );
  };

  it("has at least 60 cases, each with a source and a unique id", () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    for (const c of cases) expect(c.source.trim(), c.case).not.toBe("");
    expect(new Set(cases.map((c) => c.case)).size).toBe(cases.length);
    for (const c of cases) expect(c.completion.choices[0]!.message.tool_calls ?? [], c.case).toEqual([]);
  });

  it.each(callCases)("$family/$case: runs exactly the written calls", async (fx) => {
    const executions: Execution[] = [];
    server.enqueue({ completion: fx.completion }, answer("Done."));
    const result = await turn(executions, fx);
    expect(executions).toEqual(fx.expect.calls);
    expect(result.status).toBe("completed");
    expect(server.requests).toHaveLength(2);
    assertCallsSentBack(server.requests[1]!.body.messages, fx);
    held.add(fx.case);
  });

  it.each(answerCases)("$family/$case: an answer, nothing runs", async (fx) => {
    const executions: Execution[] = [];
    server.enqueue({ completion: fx.completion }, answer("Done."));
    const result = await turn(executions, fx);
    expect(executions).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(result.status).toBe("completed");
    expect(result.answer).toContain(fx.expect.answer_contains!);
    expect(leaks(result.answer, fx, [...ANSWER_MARKUP, ...(fx.expect.answer_excludes ?? [])])).toEqual([]);
    held.add(fx.case);
  });

  it.each(reaskedCases)(
    "$family/$case: a call cut at the limit never runs; the model is asked again",
    async (fx) => {
      const executions: Execution[] = [];
      const clean = { name: "create_ticket", args: { title: "VPN drops every 10 minutes" } };
      server.enqueue({ completion: fx.completion }, toolCalls([clean]), answer("Done."));
      const result = await turn(executions, fx);
      expect(executions).toEqual([clean]);
      expect(result.status).toBe("completed");
      expect(server.requests).toHaveLength(3);
      // The cut-off output entered no history: the second request is the first one again.
      const second = server.requests[1]!.body.messages;
      expect(second.filter((m) => m.role === "assistant" || m.role === "tool")).toEqual([]);
      held.add(fx.case);
    },
  );
});
