import { describe, expect, it } from "vitest";
import { normalizeAssistantMessage } from "../../../../src/agent/model/normalize-response.ts";
import { toolFormatContext } from "../../../../src/agent/model/tool-formats/context.ts";
import { recoverToolCalls } from "../../../../src/agent/model/tool-formats/index.ts";
import {
  fittingArguments,
  schemaGuidedFormat,
} from "../../../../src/agent/model/tool-formats/schema-guided.ts";
import { leastCpuMs } from "../../../security/adversarial-strings.ts";
import { strictSpecs } from "./strict-specs.ts";

const ctx = toolFormatContext(strictSpecs);
const recover = (text: string) => recoverToolCalls(text, ctx);
const calls = (text: string) =>
  recover(text).calls.map((c) => ({
    name: c.name,
    args: typeof c.arguments === "string" ? JSON.parse(c.arguments) : c.arguments,
    complete: c.complete,
  }));
const ticket = { name: "create_ticket", args: { title: "VPN" }, complete: true };

describe("schema-guided recovery: call-like markup naming an offered tool", () => {
  it.each([
    [
      "an unknown tag around a JSON call",
      '<xyz_tool_call>{"name": "create_ticket", "arguments": {"title": "VPN"}}</xyz_tool_call>',
    ],
    [
      "a control token and tool_name/parameters",
      '<|START_ACTION|>[{"tool_name": "create_ticket", "parameters": {"title": "VPN"}}]<|END_ACTION|>',
    ],
    [
      "an Action keyword with a fenced list",
      'Action: ```json\n[{"tool_name": "create_ticket", "parameters": {"title": "VPN"}}]\n```',
    ],
    ["ReAct Action / Action Input", 'Action: create_ticket\nAction Input: {"title": "VPN"}'],
    ["functionary's >>>name", '>>>create_ticket\n{"title": "VPN"}'],
    [
      "<function_calls> with keyword arguments",
      '<function_calls>\ncreate_ticket(title="VPN")\n</function_calls>',
    ],
    [
      "a name-keyed object (Apertus)",
      '<|tools_prefix|>[{"create_ticket": {"title": "VPN"}}]<|tools_suffix|>',
    ],
    [
      "<invoke name=…> with namespaced parameter tags",
      '<steptml:invoke name="create_ticket"><steptml:parameter name="title">VPN</steptml:parameter></steptml:invoke>',
    ],
    ["<function=…> with a JSON body", '<function=create_ticket>{"title": "VPN"}</function>'],
    ["a tag named after the tool (Cline)", "<create_ticket>\n<title>VPN</title>\n</create_ticket>"],
    ["a TOOLCALL block", '<TOOLCALL>[{"name": "create_ticket", "arguments": {"title": "VPN"}}]</TOOLCALL>'],
    [
      "a function wrapper object",
      '<tool_use>{"function": {"name": "create_ticket", "arguments": "{\\"title\\": \\"VPN\\"}"}}</tool_use>',
    ],
    [
      "GLM-style arg_key/arg_value in an unknown tag",
      "<my_call>create_ticket<arg_key>title</arg_key><arg_value>VPN</arg_value></my_call>",
    ],
  ])("%s", (_, text) => {
    const r = recover(text);
    expect(r.format).toBe("schema_guided");
    expect(calls(text)).toEqual([ticket]);
    expect(r.prose).toBe("");
  });

  it("keeps the prose around the call and types XML values from the schema", () => {
    const r = recover(
      'Let me look.\n<lookup_call>search_tickets\n<parameter name="limit">5</parameter>\n</lookup_call>',
    );
    expect(r.calls).toHaveLength(1);
    expect(r.calls[0]!.arguments).toEqual({ limit: 5 });
    expect(r.prose).toBe("Let me look.");
  });

  it("a call without arguments, when the schema allows none and the call is closed", () => {
    const now = { name: "get_current_time", args: {}, complete: true };
    expect(calls("<xyz_call>get_current_time</xyz_call>")).toEqual([now]);
    expect(calls("Action: get_current_time\nAction Input: {}")).toEqual([now]);
  });

  it("never recovers a name that is not an offered tool", () => {
    for (const text of [
      '<xyz_tool_call>{"name": "delete_everything", "arguments": {}}</xyz_tool_call>',
      "Action: delete_everything\nAction Input: {}",
      '>>>delete_everything\n{"id": 1}',
      '<|START_ACTION|>[{"tool_name": "delete_everything", "parameters": {}}]<|END_ACTION|>',
    ]) {
      expect(recover(text).calls, text).toEqual([]);
    }
  });

  it("never recovers arguments that fail the schema", () => {
    for (const text of [
      '<xyz_tool_call>{"name": "create_ticket", "arguments": {"titel": "VPN"}}</xyz_tool_call>',
      '<xyz_tool_call>{"name": "create_ticket", "arguments": {"title": "VPN", "priority": "whenever"}}</xyz_tool_call>',
      '<xyz_tool_call>{"name": "search_tickets", "arguments": {"limit": "many"}}</xyz_tool_call>',
      "Action: create_ticket",
    ]) {
      expect(recover(text).calls, text).toEqual([]);
    }
  });

  it("takes off a wrapper key only when the inner object fits and the outer does not", () => {
    const schema = strictSpecs[0]!.parameters;
    expect(fittingArguments({ arguments: { title: "VPN" } }, schema)).toEqual({ title: "VPN" });
    expect(fittingArguments({ parameters: { title: "VPN" } }, schema)).toEqual({ title: "VPN" });
    expect(
      fittingArguments({ function: { name: "create_ticket", arguments: { title: "VPN" } } }, schema),
    ).toEqual({
      title: "VPN",
    });
    expect(fittingArguments({ arguments: { nope: 1 } }, schema)).toBeUndefined();
    // The call envelope repeated inside its own arguments (same tool only).
    const envelope = { name: "create_ticket", arguments: { title: "VPN" } };
    expect(fittingArguments(envelope, schema, "create_ticket")).toEqual({ title: "VPN" });
    expect(fittingArguments(envelope, schema, "search_tickets")).toBeUndefined();
    // The outer object fits a tool that really has an `arguments` property: kept as written.
    const own = { type: "object", properties: { arguments: { type: "object" } } };
    expect(fittingArguments({ arguments: { title: "VPN" } }, own)).toEqual({ arguments: { title: "VPN" } });
  });

  it("a call quoted in code, a blockquote or introduced as an example is text", () => {
    const call = '<xyz_tool_call>{"name": "create_ticket", "arguments": {"title": "VPN"}}</xyz_tool_call>';
    for (const text of [
      `Models write \`${call}\` when the parser is off.`,
      `Like this:\n\n\`\`\`\n${call}\n\`\`\`\n\nThat is all.`,
      `The page said:\n> ${call}\nI ignored it.`,
      `For example:\n${call}`,
      `The format is ${call}`,
      `Do not run this:\n${call}`,
      `A call, e.g. ${call}, opens a ticket.`,
      `The document asks me to run ${call} but I will not.`,
    ]) {
      const r = recover(text);
      expect(r.calls, text).toEqual([]);
      expect(r.unrecovered, text).toBeUndefined();
    }
  });

  it("a call cut off mid-arguments is read as incomplete (never executed)", () => {
    expect(calls('<|START_ACTION|>[{"tool_name": "create_ticket", "parameters": {"title": "VP')).toEqual([
      { name: "create_ticket", args: {}, complete: false },
    ]);
    const n = normalizeAssistantMessage({ content: '>>>create_ticket\n{"title": "VP' }, "length", ctx);
    expect(n.toolCalls).toEqual([]);
  });

  it("is the last reader: a known format's call wins over it", () => {
    const r = recover('<tool_call>{"name": "create_ticket", "arguments": {"title": "VPN"}}</tool_call>');
    expect(r.format).toBe("hermes_json");
  });

  it("plain prose and markup that is no call cost nothing and claim nothing", () => {
    for (const text of [
      "The VPN drops every ten minutes. Action: none needed.",
      "<b>create_ticket</b> opens a ticket.",
      "Use <tool_response> tags for results.",
      "create_ticket(title='x') is how you would call it.",
      "Tool: search_tickets\nI used it to find three open tickets.",
      "Action: get_current_time was run a minute ago.",
    ]) {
      expect(recover(text).calls, text).toEqual([]);
    }
  });

  it("hostile inputs stay within a few milliseconds", () => {
    const hostile = [
      "<".repeat(100_000),
      "<a_tool_call>".repeat(20_000),
      `<x_tool_call>${"{".repeat(50_000)}`,
      `<x_tool_call>${"[".repeat(50_000)}`,
      "Action: create_ticket\n".repeat(10_000),
      `<|START_ACTION|>${'[{"tool_name": "create_ticket", "parameters": {"title": "x"}}, '.repeat(2_000)}`,
      `<function_calls>\n${'create_ticket(title="x")\n'.repeat(5_000)}`,
      `>>>${"a".repeat(100_000)}`,
      `<create_ticket>\n${"<title>".repeat(20_000)}`,
      "word ".repeat(40_000),
    ];
    for (const text of hostile) {
      const ms = leastCpuMs(() => schemaGuidedFormat.parse(text, ctx));
      expect(ms, text.slice(0, 40)).toBeLessThan(50);
    }
  });
});
