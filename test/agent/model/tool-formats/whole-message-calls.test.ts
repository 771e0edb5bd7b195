import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../../../src/agent/model/chat-model.ts";
import { normalizeAssistantMessage } from "../../../../src/agent/model/normalize-response.ts";
import { toolFormatContext } from "../../../../src/agent/model/tool-formats/context.ts";
import { recoverToolCalls } from "../../../../src/agent/model/tool-formats/index.ts";
import { leastCpuMs } from "../../../security/adversarial-strings.ts";
import { strictSpecs } from "./strict-specs.ts";

/** The registry's strict tools, with `get_current_time` taking any keys (as many MCP tools' schemas do). */
const specs: ToolSpec[] = [
  ...strictSpecs.filter((s) => s.name !== "get_current_time"),
  { name: "get_current_time", description: "", parameters: { type: "object", properties: {} } },
];
const ctx = toolFormatContext(specs);
const calls = (text: string) =>
  recoverToolCalls(text, ctx).calls.map((c) => ({
    name: c.name,
    args: typeof c.arguments === "string" ? JSON.parse(c.arguments) : c.arguments,
    complete: c.complete,
  }));
const ticket = { name: "create_ticket", args: { title: "VPN" }, complete: true };
const search = { name: "search_tickets", args: { query: "VPN" }, complete: true };

describe("a message that is nothing but its call, in no family's markup", () => {
  it.each([
    ["LangChain's action blob", '{"action": "create_ticket", "action_input": {"title": "VPN"}}'],
    ["the same, fenced", '```json\n{"action": "create_ticket", "action_input": {"title": "VPN"}}\n```'],
    ["a function name as a string", '{"function": "create_ticket", "parameters": {"title": "VPN"}}'],
    ["tool / tool_input", '{"tool": "create_ticket", "tool_input": {"title": "VPN"}}'],
    [
      "function_name / function_parameters",
      '{"function_name": "create_ticket", "function_parameters": {"title": "VPN"}}',
    ],
    ["GLM-4's name line", 'create_ticket\n{"title": "VPN"}'],
    [
      "an XML declaration and a wrapper",
      '<?xml version="1.0"?>\n<json>{"name": "create_ticket", "arguments": {"title": "VPN"}}</json>',
    ],
    [
      "nested unknown wrappers",
      '<response>\n<tools>\n{"name": "create_ticket", "arguments": {"title": "VPN"}}\n</tools>\n</response>',
    ],
  ])("%s", (_, text) => {
    expect(calls(text)).toEqual([ticket]);
  });

  it("reads every call of the message, or none", () => {
    expect(
      calls(
        '[{"action": "create_ticket", "action_input": {"title": "VPN"}}, {"action": "search_tickets", "action_input": {"query": "VPN"}}]',
      ),
    ).toEqual([ticket, search]);
    expect(
      calls(
        '[{"action": "create_ticket", "action_input": {"title": "VPN"}}, {"action": "drop_tables", "action_input": {}}]',
      ),
    ).toEqual([]);
  });

  it("is prose as soon as anything else is in the message", () => {
    expect(calls('Here it is: {"action": "create_ticket", "action_input": {"title": "VPN"}}')).toEqual([]);
    expect(calls('create_ticket\n{"title": "VPN"}\nShall I?')).toEqual([]);
    expect(calls('Sure.\ncreate_ticket\n{"title": "VPN"}')).toEqual([]);
    expect(calls('<note>see</note>{"action": "create_ticket", "action_input": {"title": "VPN"}}')).toEqual(
      [],
    );
  });

  it("names an offered tool with arguments that fit, or claims nothing", () => {
    expect(calls('{"action": "drop_tables", "action_input": {}}')).toEqual([]);
    expect(calls('{"action": "create_ticket", "action_input": {"priority": "high"}}')).toEqual([]);
    expect(calls('drop_tables\n{"all": true}')).toEqual([]);
    expect(calls('create_ticket\n{"title": "VPN", "owner": "me"}')).toEqual([]);
  });

  it("a tool definition repeated back is no call, even where its schema would fit", () => {
    const echo =
      '<tools>\n{"type": "function", "function": {"name": "get_current_time", "description": "d", "parameters": {"type": "object", "properties": {}}}}\n</tools>';
    expect(calls(echo)).toEqual([]);
  });

  it("a blob cut off at the limit is an incomplete call, never a complete one", () => {
    expect(calls('{"action": "create_ticket", "action_input": {"title": "VP')).toEqual([
      { name: "create_ticket", args: {}, complete: false },
    ]);
    expect(calls('create_ticket\n{"title": "VP')).toEqual([
      { name: "create_ticket", args: {}, complete: false },
    ]);
  });
});

describe("more shapes at call sites", () => {
  it("Qwen-Agent's ✿FUNCTION✿ / ✿ARGS✿ lines, one call per block", () => {
    expect(calls('✿FUNCTION✿: create_ticket\n✿ARGS✿: {"title": "VPN"}')).toEqual([ticket]);
    expect(
      calls(
        'Checking.\n✿FUNCTION✿: create_ticket\n✿ARGS✿: {"title": "VPN"}\n✿FUNCTION✿: search_tickets\n✿ARGS✿: {"query": "VPN"}',
      ),
    ).toEqual([ticket, search]);
    expect(calls('> ✿FUNCTION✿: create_ticket\n> ✿ARGS✿: {"title": "VPN"}')).toEqual([]);
  });

  it("a <function> element holding the name, then bare JSON arguments", () => {
    const text =
      'Let me look.\n<tool_call>\n<function>create_ticket</function>\n{"title": "VPN"}\n</tool_call>';
    const r = recoverToolCalls(text, ctx);
    expect(calls(text)).toEqual([ticket]);
    expect(r.prose).toBe("Let me look.");
  });

  it("a dict as the one argument of a call is its arguments; any other positional argument is not", () => {
    expect(calls('[create_ticket({"title": "VPN"})]')).toEqual([ticket]);
    expect(calls('<tool_call>create_ticket({"title": "VPN"})</tool_call>')).toEqual([ticket]);
    expect(calls('[search_tickets("VPN")]')).toEqual([]);
    expect(calls('[create_ticket({"title": "VPN"}, "high")]')).toEqual([]);
  });

  it("a CDATA value is its text", () => {
    expect(
      calls(
        "<tool_call>\n<function=create_ticket>\n<parameter=title>\n<![CDATA[a <b> & c]]>\n</parameter>\n</function>\n</tool_call>",
      ),
    ).toEqual([{ name: "create_ticket", args: { title: "a <b> & c" }, complete: true }]);
  });

  it("the wrappers and the fence a call stood in do not stay behind in the prose", () => {
    const wrapped = normalizeAssistantMessage(
      {
        content:
          'On it.\n<function_calls>\n<invoke name="create_ticket">\n<parameter name="title">VPN</parameter>\n</invoke>\n</function_calls>',
      },
      "stop",
      ctx,
    );
    expect(wrapped.toolCalls).toHaveLength(1);
    expect(wrapped.content).toBe("On it.");
    const fenced = normalizeAssistantMessage(
      {
        content:
          '```xml\n<function_call>\n{"name": "create_ticket", "arguments": {"title": "VPN"}}\n</function_call>\n```',
      },
      "stop",
      ctx,
    );
    expect(fenced.toolCalls).toHaveLength(1);
    expect(fenced.content).toBe("");
  });
});

describe("answers wrapped whole in a tag", () => {
  it("Hunyuan's <answer> and ERNIE's <response> come off; other tags and partial wraps stay", () => {
    const answer = (content: string) => normalizeAssistantMessage({ content }, "stop", ctx).content;
    expect(answer("<think>\nhm\n</think>\n<answer>\nIt is noon.\n</answer>")).toBe("It is noon.");
    expect(answer("why\n</think>\n\n<response>\nThree are open.\n</response>\n")).toBe("Three are open.");
    expect(answer("<answer>cut off at the lim")).toBe("cut off at the lim");
    expect(answer("<answer>one</answer> and <answer>two</answer>")).toBe(
      "<answer>one</answer> and <answer>two</answer>",
    );
    expect(answer("Use <response> tags.")).toBe("Use <response> tags.");
    expect(answer("<b>bold</b>")).toBe("<b>bold</b>");
  });
});

describe("cost", () => {
  it("a long plain reply and hostile wrappers stay cheap", () => {
    const prose = "The VPN gateway restarts at two. ".repeat(60);
    expect(leastCpuMs(() => recoverToolCalls(prose, ctx))).toBeLessThan(20);
    const nested = `${"<a>".repeat(20_000)}{"action": "create_ticket", "action_input": {"title": "VPN"}}${"</a>".repeat(20_000)}`;
    expect(leastCpuMs(() => recoverToolCalls(nested, ctx))).toBeLessThan(100);
    const declarations = `<?xml ${"x".repeat(100_000)}`;
    expect(leastCpuMs(() => recoverToolCalls(declarations, ctx))).toBeLessThan(100);
  });
});
