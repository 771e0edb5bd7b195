import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelResponse } from "../../../../src/agent/model/chat-model.ts";
import { defineTool } from "../../../../src/tools/define-tool.ts";
import { type Execution, fixtureTools, testModel, testRegistry } from "../../../helpers/runtime.ts";
import { answer, ScriptedModelServer } from "../../../helpers/scripted-model.ts";
import { completionChunks, randomCutter, sseBody } from "../../../helpers/sse-completion.ts";

/**
 * The streaming adapter against the whole model-format corpus and the shared tool-call fixtures: each
 * case served once as one JSON body and then as an SSE stream cut at random points (inside markers
 * too), through the real SDK. The two ModelResponses must be equal, and the text shown while the
 * stream ran must be the start of the final answer, with no markup, call or reasoning in it.
 */

interface Fixture {
  case: string;
  completion: { model?: string; choices: Array<{ message: Record<string, unknown> }> } & Record<
    string,
    unknown
  >;
  expect?: { reasoning_excluded?: string[] };
}

const read = (path: URL) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Fixture);
const formatsDir = new URL("../../../fixtures/model-formats/", import.meta.url);
const fixtures: Fixture[] = [
  ...readdirSync(formatsDir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .flatMap((f) => read(new URL(f, formatsDir))),
  ...read(new URL("../../../../../shared/fixtures/model/tool_calls.jsonl", import.meta.url)).map((f) => ({
    ...f,
    case: `shared/${f.case}`,
  })),
];

const specs = testRegistry([
  ...fixtureTools([] as Execution[]),
  defineTool({
    name: "schedule_check",
    description: "Schedule a recurring check.",
    input: z.object({
      minutes: z.number().int(),
      notify: z.boolean(),
      channels: z.array(z.string()),
      meta: z.record(z.string(), z.unknown()).optional(),
    }),
    execute: () => ({ ok: true }),
  }),
]).registry.specs();

/** Markup that must never be shown while a stream runs (calls, reasoning, special tokens). */
const MARKUP = [
  "<",
  ">",
  "[TOOL",
  "[THINK]",
  "|",
  "｜",
  "{",
  "}",
  "functools",
  "to=functions",
  "assistantfinal",
  "assistantcommentary",
  "tool_call",
  '"name"',
  '"arguments"',
  "```",
];

function comparable(r: ModelResponse, rawIds: Set<string>) {
  // How it came (a stream or one body) is told apart by `streamed`; what it says must be equal.
  const { latencyMs: _latency, streamed: _streamed, ...rest } = r;
  // Ids the server did not send are generated (random) on both paths: compared as generated.
  return {
    ...rest,
    toolCalls: r.toolCalls.map((c) => ({ ...c, id: rawIds.has(c.id) ? c.id : "(generated)" })),
  };
}

function reasoningHeads(fx: Fixture): string[] {
  const m = fx.completion.choices[0]!.message;
  const out = [...(fx.expect?.reasoning_excluded ?? [])];
  for (const key of ["reasoning_content", "reasoning"])
    if (typeof m[key] === "string") out.push(m[key] as string);
  const content = typeof m.content === "string" ? m.content : "";
  const close = content.indexOf("</think>");
  if (close >= 0) {
    const open = content.lastIndexOf("<think>", close);
    out.push(content.slice(open >= 0 ? open + 7 : 0, close));
  }
  return out.map((t) => t.trim().slice(0, 40)).filter((t) => t.length >= 8);
}

const casesShowingText = new Set<string>();

describe("streamed completions equal unstreamed ones (model-format corpus + shared tool-call fixtures)", () => {
  const server = new ScriptedModelServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  it("has the whole corpus", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(100);
  });

  for (const fx of fixtures) {
    it(fx.case, async () => {
      const modelName = fx.completion.model ?? "scripted";
      const plain = testModel(server, { model: modelName, maxRetries: 0 });
      const streaming = testModel(server, { model: modelName, maxRetries: 0, stream: true });
      const messages = [
        { role: "user" as const, content: "The VPN drops every 10 minutes, please sort it out." },
      ];
      const rawIds = new Set(
        ((fx.completion.choices[0]!.message.tool_calls as Array<{ id?: unknown }> | undefined) ?? [])
          .map((c) => c?.id)
          .filter((id): id is string => typeof id === "string"),
      );
      server.enqueue({ completion: fx.completion });
      const expected = await plain.complete({ messages, tools: specs });
      expect(server.requests[0]!.body.stream).toBeUndefined();
      expect(expected.streamed).toBeUndefined();
      // The first streamed answer of a model shows nothing (whether its template opens a reasoning
      // block is unknown until then); the adapter learns from this case itself, as it would from the
      // same deployment's earlier answers.
      for (const seed of [1, 7, 42, 1234, 99]) {
        const shown: string[] = [];
        server.toChunks = (c) => completionChunks(c, randomCutter(seed));
        server.enqueue({ completion: fx.completion });
        const got = await streaming.complete({ messages, tools: specs, onText: (d) => shown.push(d) });
        expect(server.requests.at(-1)!.body.stream).toBe(true);
        expect(got.streamed).toBe(true);
        expect(comparable(got, rawIds), `seed ${seed}`).toEqual(comparable(expected, rawIds));
        const text = shown.join("");
        if (text) casesShowingText.add(fx.case);
        expect(
          got.content.startsWith(text),
          `shown ${JSON.stringify(text)} starts the answer (seed ${seed})`,
        ).toBe(true);
        expect(
          MARKUP.filter((m) => text.includes(m)),
          `seed ${seed}`,
        ).toEqual([]);
        for (const r of reasoningHeads(fx)) expect(text, `reasoning shown (seed ${seed})`).not.toContain(r);
        for (const c of got.toolCalls) if (c.arguments.length > 12) expect(text).not.toContain(c.arguments);
      }
    });
  }

  it("showed answer text early for the cases with prose before any markup", () => {
    expect(casesShowingText.size).toBeGreaterThanOrEqual(15);
  });
});

describe("streaming failures never give a half answer", () => {
  const server = new ScriptedModelServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => server.reset());
  const messages = [{ role: "user" as const, content: "hi" }];

  it("a plain model family (gpt-4o-mini, the default) shows text from its first answer", async () => {
    server.enqueue(answer("Two tickets are open right now, both about the VPN."));
    const shown: string[] = [];
    await testModel(server, { stream: true, model: "gpt-4o-mini" }).complete({
      messages,
      tools: [],
      onText: (d) => shown.push(d),
    });
    expect(shown.join("")).toBe("Two tickets are open right now, both about the");
  });

  it("a model whose template opens reasoning never shows it, and shows the answer after the closing tag", async () => {
    const text =
      "The user wants the open tickets, I should list them.</think>Two tickets are open right now, both about the VPN.";
    server.enqueue(answer(text), answer(text));
    const model = testModel(server, { stream: true });
    await model.complete({ messages, tools: [], onText: () => undefined });
    const shown: string[] = [];
    const got = await model.complete({ messages, tools: [], onText: (d) => shown.push(d) });
    expect(got.content).toBe("Two tickets are open right now, both about the VPN.");
    expect(shown.join("")).toBe("Two tickets are open right now, both about the");
  });

  it("a stream cut off before its finish reason is asked again; the answer is the whole second one", async () => {
    const full = answer("The VPN gateway was restarted and the tunnel is stable again.");
    const chunks = completionChunks(
      (full as { completion: Record<string, unknown> }).completion,
      randomCutter(3),
    );
    const cut = chunks
      .slice(0, 6)
      .map((c) => `data: ${JSON.stringify(c)}\n\n`)
      .join("");
    server.enqueue({ sse: cut }, full);
    const retries: number[] = [];
    const shown: string[] = [];
    const model = testModel(server, { stream: true, maxRetries: 2 });
    const got = await model.complete({
      messages,
      tools: [],
      onText: (d) => shown.push(d),
      onRetry: (i) => retries.push(i.attempt),
    });
    expect(got.content).toBe("The VPN gateway was restarted and the tunnel is stable again.");
    expect(retries).toEqual([1]);
    expect(server.requests).toHaveLength(2);
  });

  it("a cut-off stream with no retries left fails the call (the loop's fallback takes it), never a partial answer", async () => {
    const full = answer("Partial answers must never be returned as if they were whole.");
    const chunks = completionChunks(
      (full as { completion: Record<string, unknown> }).completion,
      randomCutter(5),
    );
    server.enqueue({ sse: sseBody(chunks.slice(0, 5)).replace("data: [DONE]\n\n", "") });
    const model = testModel(server, { stream: true, maxRetries: 0 });
    await expect(model.complete({ messages, tools: [], onText: () => undefined })).rejects.toThrow(
      /cut off|ended/,
    );
  });

  it("a server that answers a streamed request with one JSON body is read as that answer", async () => {
    server.streams = false;
    server.enqueue(answer("Plain JSON from a server that cannot stream."));
    const shown: string[] = [];
    const got = await testModel(server, { stream: true }).complete({
      messages,
      tools: [],
      onText: (d) => shown.push(d),
    });
    expect(got.content).toBe("Plain JSON from a server that cannot stream.");
    expect(shown).toEqual([]);
    // Not a stream: the turn's answer does not stream into Slack either.
    expect(got.streamed).toBeUndefined();
  });

  it("a server refusing `stream` (HTTP 400) is asked unstreamed, then and afterwards", async () => {
    server.enqueue({ status: 400, body: { error: { message: "stream_options is not supported" } } });
    server.enqueue(answer("first"), answer("second"));
    const model = testModel(server, { stream: true });
    const first = await model.complete({ messages, tools: [], onText: () => undefined });
    const second = await model.complete({ messages, tools: [], onText: () => undefined });
    expect([first.content, second.content]).toEqual(["first", "second"]);
    expect([first.streamed, second.streamed]).toEqual([undefined, undefined]);
    expect(server.requests.map((r) => r.body.stream ?? false)).toEqual([true, false, false]);
  });

  it("a request refused both streamed and unstreamed (HTTP 400) fails, and later requests still stream", async () => {
    const bad = { status: 400, body: { error: { message: "context length exceeded" } } };
    server.enqueue(bad, bad, answer("fine"));
    const model = testModel(server, { stream: true });
    await expect(model.complete({ messages, tools: [], onText: () => undefined })).rejects.toThrow(
      /HTTP 400/,
    );
    expect((await model.complete({ messages, tools: [], onText: () => undefined })).content).toBe("fine");
    expect(server.requests.map((r) => r.body.stream ?? false)).toEqual([true, false, true]);
  });

  it("streams answer text as it arrives, with usage from the usage chunk", async () => {
    server.toChunks = (c) => completionChunks(c, randomCutter(9));
    server.enqueue(
      answer("Hello."),
      answer("Three tickets are open: two about the VPN and one about printers."),
    );
    const model = testModel(server, { stream: true });
    const first: string[] = [];
    await model.complete({ messages, tools: [], onText: (d) => first.push(d) });
    expect(
      first,
      "nothing shows before the model's first answer tells whether it reasons in its text",
    ).toEqual([]);
    const shown: string[] = [];
    const got = await model.complete({ messages, tools: [], onText: (d) => shown.push(d) });
    expect(shown.length).toBeGreaterThan(3);
    expect(shown.join("")).toBe("Three tickets are open: two about the VPN and one about");
    expect(got.usage).toEqual({ promptTokens: 100, completionTokens: 20, totalTokens: 120, requests: 1 });
  });
});
