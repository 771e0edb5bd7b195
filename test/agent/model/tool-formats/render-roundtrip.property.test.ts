import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../../../src/agent/model/chat-model.ts";
import { toolFormatContext } from "../../../../src/agent/model/tool-formats/context.ts";
import { recoverToolCalls } from "../../../../src/agent/model/tool-formats/index.ts";
import { parseLenientJson } from "../../../../src/core/lenient-json.ts";

/**
 * Round trip: each family's syntax, rendered here from its own sources (parser tests, chat templates),
 * is read back by `recoverToolCalls` as the same calls. The renderers are ours and independent of the
 * parsers; values are typed only by the tools' JSON Schemas, as the servers' XML parsers do.
 */

type ToolName = "create_ticket" | "search_tickets" | "get_current_time" | "schedule_check";
type Value = string | number | boolean | string[];
interface Call {
  name: ToolName;
  args: Record<string, Value>;
}

const specs: ToolSpec[] = [
  {
    name: "create_ticket",
    description: "Open a ticket.",
    parameters: {
      type: "object",
      properties: {
        title: { type: "string", minLength: 1 },
        description: { type: "string" },
        priority: { type: "string", enum: ["low", "medium", "high", "urgent"] },
      },
      required: ["title"],
    },
  },
  {
    name: "search_tickets",
    description: "Search tickets.",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string" },
        status: { type: "string", enum: ["open", "in_progress", "closed"] },
        limit: { type: "integer", minimum: 1, maximum: 50 },
      },
    },
  },
  {
    name: "get_current_time",
    description: "The current time.",
    parameters: { type: "object", properties: {} },
  },
  {
    name: "schedule_check",
    description: "Schedule a recurring check.",
    parameters: {
      type: "object",
      properties: {
        minutes: { type: "integer" },
        notify: { type: "boolean" },
        channels: { type: "array", items: { type: "string" } },
        meta: { type: "object" },
      },
      required: ["minutes", "notify", "channels"],
    },
  },
];
const ctx = toolFormatContext(specs);

// Strings: quotes, backslashes, newlines, tabs, `<`, brackets, separators, non-ASCII and an emoji.
// Closing markers ("</…", "<|", "|>", full-width bars, [END_…) are left out: no format can hold them raw.
const UNITS = [
  "a",
  "b",
  "Z",
  "7",
  " ",
  '"',
  "'",
  "\\",
  "\n",
  "\t",
  "<",
  ">",
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  "=",
];
const UNITS_2 = ["(", ")", ";", "#", "/", ".", "é", "中", "—", "🛜"];
const FORBIDDEN = ["</", "<|", "|>", "｜", "[END_", "```"];
const text = fc
  .string({ unit: fc.constantFrom(...UNITS, ...UNITS_2), minLength: 1, maxLength: 24 })
  .filter((s) => s === s.trim() && s.length > 0 && !FORBIDDEN.some((f) => s.includes(f)));

const callArb: fc.Arbitrary<Call> = fc.oneof(
  fc
    .record(
      {
        title: text,
        description: text,
        priority: fc.constantFrom("low", "medium", "high", "urgent"),
      },
      { requiredKeys: ["title"] },
    )
    .map((args) => ({ name: "create_ticket" as const, args })),
  fc
    .record(
      {
        query: text,
        status: fc.constantFrom("open", "in_progress", "closed"),
        limit: fc.integer({ min: 1, max: 50 }),
      },
      { requiredKeys: [] },
    )
    .map((args) => ({ name: "search_tickets" as const, args })),
  fc.constant({ name: "get_current_time" as const, args: {} }),
  fc
    .record({
      minutes: fc.integer({ min: -100, max: 100_000 }),
      notify: fc.boolean(),
      channels: fc.array(text, { maxLength: 3 }),
    })
    .map((args) => ({ name: "schedule_check" as const, args })),
);
const oneCall = callArb.map((c) => [c]);
const someCalls = fc.array(callArb, { minLength: 1, maxLength: 3 });

const json = JSON.stringify;
const entries = (c: Call) => Object.entries(c.args);
/** XML families write strings raw and everything else as JSON (the templates' tojson). */
const xmlValue = (v: Value) => (typeof v === "string" ? v : json(v));
/** A Python literal, as the pythonic families write it. */
function py(v: Value): string {
  if (Array.isArray(v)) return `[${v.map(py).join(", ")}]`;
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return String(v);
  const escaped = v.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  return `'${escaped}'`;
}
const pyCall = (c: Call) =>
  `${c.name}(${entries(c)
    .map(([k, v]) => `${k}=${py(v)}`)
    .join(", ")})`;
/** Gemma 4's value syntax: strings between <|"|>, bare numbers and booleans, lists in []. */
function gemma4(v: Value): string {
  if (Array.isArray(v)) return `[${v.map(gemma4).join(",")}]`;
  return typeof v === "string" ? `<|"|>${v}<|"|>` : String(v);
}
const nameArgs = (key: "arguments" | "parameters") => (c: Call) => ({ name: c.name, [key]: c.args });

interface Family {
  /** Which renderer, and where its syntax is taken from. */
  id: string;
  source: string;
  calls: fc.Arbitrary<Call[]>;
  /** Families with markers of their own may carry prose before the calls. */
  prose?: boolean;
  render(calls: Call[]): string;
}

const DS = {
  b: "<｜tool▁calls▁begin｜>",
  e: "<｜tool▁calls▁end｜>",
  cb: "<｜tool▁call▁begin｜>",
  ce: "<｜tool▁call▁end｜>",
};
const families: Family[] = [
  {
    id: "hermes_json",
    source: "vllm tests/tool_parsers/test_hermes_tool_parser.py",
    calls: someCalls,
    prose: true,
    render: (cs) => cs.map((c) => `<tool_call>\n${json(nameArgs("arguments")(c))}\n</tool_call>`).join("\n"),
  },
  {
    id: "qwen3_coder_xml",
    source: "vllm tests/tool_parsers/test_qwen3coder_tool_parser.py; Qwen3-Coder chat template",
    calls: someCalls,
    prose: true,
    render: (cs) =>
      cs
        .map(
          (c) =>
            `<tool_call>\n<function=${c.name}>\n${entries(c)
              .map(([k, v]) => `<parameter=${k}>\n${xmlValue(v)}\n</parameter>\n`)
              .join("")}</function>\n</tool_call>`,
        )
        .join("\n"),
  },
  {
    id: "minimax_xml",
    source:
      "vllm tests/tool_parsers/test_minimax_m2_tool_parser.py; llama.cpp models/templates/unsloth-MiniMax-M2.jinja",
    calls: someCalls,
    prose: true,
    render: (cs) =>
      `<minimax:tool_call>\n${cs
        .map(
          (c) =>
            `<invoke name="${c.name}">\n${entries(c)
              .map(([k, v]) => `<parameter name="${k}">${xmlValue(v)}</parameter>\n`)
              .join("")}</invoke>\n`,
        )
        .join("")}</minimax:tool_call>`,
  },
  {
    id: "glm45",
    source: "llama.cpp models/templates/glm_4_5.jinja; vllm tests/tool_parsers/test_glm4_moe_tool_parser.py",
    calls: someCalls,
    prose: true,
    render: (cs) =>
      cs
        .map(
          (c) =>
            `<tool_call>${c.name}\n${entries(c)
              .map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${xmlValue(v)}</arg_value>\n`)
              .join("")}</tool_call>`,
        )
        .join("\n"),
  },
  {
    id: "mistral_pre_v11",
    source: "vllm tests/tool_parsers/test_mistral_tool_parser.py (pre-v11 tokenizer)",
    calls: someCalls,
    render: (cs) => `[TOOL_CALLS] ${json(cs.map(nameArgs("arguments")))}`,
  },
  {
    id: "mistral_v11",
    source: "vllm tests/tool_parsers/test_mistral_tool_parser.py (v11 tokenizer)",
    calls: someCalls,
    prose: true,
    render: (cs) => cs.map((c) => `[TOOL_CALLS]${c.name}${json(c.args)}`).join(""),
  },
  {
    id: "llama3_json",
    source: "vllm tests/tool_parsers/test_llama3_json_tool_parser.py",
    calls: someCalls,
    render: (cs) => cs.map((c) => json(nameArgs("parameters")(c))).join("; "),
  },
  {
    id: "llama3_python_tag",
    source: "sglang python/sglang/srt/function_call/llama32_detector.py",
    calls: oneCall,
    render: (cs) => `<|python_tag|>${json(nameArgs("parameters")(cs[0]!))}`,
  },
  {
    id: "pythonic",
    source: "vllm tests/tool_parsers/test_pythonic_tool_parser.py",
    calls: someCalls,
    render: (cs) => `[${cs.map(pyCall).join(", ")}]`,
  },
  {
    id: "deepseek_v31",
    source: "vllm tests/tool_parsers/test_deepseekv31_tool_parser.py",
    calls: someCalls,
    prose: true,
    render: (cs) =>
      `${DS.b}${cs.map((c) => `${DS.cb}${c.name}<｜tool▁sep｜>${json(c.args)}${DS.ce}`).join("")}${DS.e}`,
  },
  {
    id: "kimi_k2",
    source: "vllm tests/tool_parsers/test_kimi_k2_tool_parser.py",
    calls: someCalls,
    prose: true,
    render: (cs) =>
      `<|tool_calls_section_begin|>${cs
        .map(
          (c, i) =>
            `<|tool_call_begin|>functions.${c.name}:${i}<|tool_call_argument_begin|>${json(c.args)}<|tool_call_end|>`,
        )
        .join("")}<|tool_calls_section_end|>`,
  },
  {
    id: "harmony",
    source: "openai/harmony docs/format.md; vllm tests/tool_parsers/test_openai_tool_parser.py",
    calls: someCalls,
    render: (cs) =>
      cs
        .map(
          (c, i) =>
            `${i === 0 ? "" : "<|start|>assistant"}<|channel|>commentary to=functions.${c.name} <|constrain|>json<|message|>${json(c.args)}<|call|>`,
        )
        .join(""),
  },
  {
    id: "granite",
    source: "vllm tests/tool_parsers/test_granite_tool_parser.py",
    calls: someCalls,
    render: (cs) => `<|tool_call|>${json(cs.map(nameArgs("arguments")))}`,
  },
  {
    id: "internlm2",
    source: "vllm tests/tool_parsers/test_internlm2_tool_parser.py (one call per action)",
    calls: oneCall,
    render: (cs) => `<|action_start|><|plugin|>\n${json(nameArgs("parameters")(cs[0]!))}<|action_end|>`,
  },
  {
    id: "jamba",
    source: "vllm tests/tool_parsers/test_jamba_tool_parser.py",
    calls: someCalls,
    render: (cs) => `<tool_calls>${json(cs.map(nameArgs("arguments")))}</tool_calls>`,
  },
  {
    id: "phi4_mini",
    source: "vllm tests/tool_parsers/test_phi4mini_tool_parser.py",
    calls: someCalls,
    render: (cs) => `functools${json(cs.map(nameArgs("arguments")))}`,
  },
  {
    id: "lmstudio",
    source: "https://lmstudio.ai/docs/advanced/tool-use",
    calls: someCalls,
    prose: true,
    render: (cs) =>
      cs.map((c) => `[TOOL_REQUEST]${json(nameArgs("arguments")(c))}[END_TOOL_REQUEST]`).join("\n"),
  },
  {
    id: "gemma_tool_code",
    source: "https://ai.google.dev/gemma/docs/meme-generator",
    calls: oneCall,
    render: (cs) => `\`\`\`tool_code\n${pyCall(cs[0]!)}\n\`\`\``,
  },
  {
    id: "gemma4",
    source: "vllm tests/tool_parsers/test_gemma4_tool_parser.py",
    calls: someCalls,
    prose: true,
    render: (cs) =>
      cs
        .map(
          (c) =>
            `<|tool_call>call:${c.name}{${entries(c)
              .map(([k, v]) => `${k}:${gemma4(v)}`)
              .join(",")}}<tool_call|>`,
        )
        .join(""),
  },
  {
    id: "xlam",
    source: "vllm tests/tool_parsers/test_xlam_tool_parser.py",
    calls: someCalls,
    render: (cs) => json(cs.map(nameArgs("arguments"))),
  },
];

/** Arguments may come back as JSON text or as an object. */
function parsed(args: string | Record<string, unknown>): unknown {
  if (typeof args !== "string") return args;
  if (args.trim() === "") return {};
  try {
    return JSON.parse(args);
  } catch {
    const lenient = parseLenientJson(args);
    return lenient.ok ? lenient.value : args;
  }
}

/** The name as the tools know it: namespace and index written by some families are resolved later. */
const bare = (name: string) => name.replace(/^functions\./, "").replace(/:\d+$/, "");

const PROSE = ["Sure, on it.", "Let me check that first.", "Je regarde ça — un instant."];

describe("every family's syntax, rendered from its sources, reads back as the same calls", () => {
  it.each(families)("$id ($source)", (family) => {
    const withProse = family.prose
      ? fc.option(fc.constantFrom(...PROSE), { nil: undefined })
      : fc.constant(undefined);
    fc.assert(
      fc.property(family.calls, withProse, (calls, prose) => {
        const rendered = family.render(calls);
        const got = recoverToolCalls(prose ? `${prose}\n${rendered}` : rendered, ctx);
        expect(got.calls.map((c) => bare(c.name))).toEqual(calls.map((c) => c.name));
        expect(got.calls.map((c) => parsed(c.arguments))).toEqual(calls.map((c) => c.args));
        expect(got.calls.every((c) => c.complete)).toBe(true);
        if (prose) expect(got.prose).toBe(prose);
      }),
      { numRuns: 60 },
    );
  });
});
