import { describe, expect, it } from "vitest";
import { deepseekDsmlFormat } from "../../../../src/agent/model/tool-formats/deepseek-dsml.ts";
import { glm45Format } from "../../../../src/agent/model/tool-formats/glm45.ts";
import { minimaxXmlFormat } from "../../../../src/agent/model/tool-formats/minimax-xml.ts";
import { qwen3CoderXmlFormat } from "../../../../src/agent/model/tool-formats/qwen3-coder-xml.ts";
import type { ToolFormat } from "../../../../src/agent/model/tool-formats/types.ts";
import { typeXmlValue } from "../../../../src/agent/model/tool-formats/xml-values.ts";
import { read, schemas } from "./schema-context.ts";

const weather = schemas.get_weather;

describe("typeXmlValue", () => {
  // vLLM qwen3coder_tool_parser._convert_param_value and its test_extract_tool_calls_type_conversion.
  it("types a value from the property's schema", () => {
    expect(typeXmlValue("\nSan Francisco\n", weather, "city")).toBe("San Francisco");
    expect(typeXmlValue("\n  padded  \n", weather, "city")).toBe("  padded  ");
    expect(typeXmlValue("\n42\n", weather, "days")).toBe(42);
    expect(typeXmlValue("true", weather, "metric")).toBe(true);
    expect(typeXmlValue("False", weather, "metric")).toBe(false);
    expect(typeXmlValue('["a", "b"]', weather, "tags")).toEqual(["a", "b"]);
    expect(typeXmlValue("{'width': 10, 'ok': True}", { properties: { d: { type: "object" } } }, "d")).toEqual(
      {
        width: 10,
        ok: true,
      },
    );
    expect(typeXmlValue("3.5", { properties: { x: { type: "number" } } }, "x")).toBe(3.5);
  });

  it("leaves text that does not fit its type as a string, for validation to report", () => {
    expect(typeXmlValue("three", weather, "days")).toBe("three");
    expect(typeXmlValue("2.5", weather, "days")).toBe("2.5");
    expect(typeXmlValue("yes", weather, "metric")).toBe("yes");
    expect(typeXmlValue("not json", weather, "tags")).toBe("not json");
  });

  // vLLM test_extract_tool_calls_anyof_type_conversion (Pydantic v2 Optional[T], type lists).
  it("handles anyOf, nullable, type lists and enums", () => {
    const schema = {
      properties: {
        count: { anyOf: [{ type: "integer" }, { type: "null" }] },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        items: { oneOf: [{ type: "array" }, { type: "null" }] },
        either: { type: ["integer", "null"] },
        mixed: { anyOf: [{ type: "string" }, { type: "integer" }] },
        level: { enum: [1, 2, 3] },
        unit: { enum: ["c", "f"] },
        legacy: { type: "integer", nullable: true },
      },
    };
    expect(typeXmlValue("5", schema, "count")).toBe(5);
    expect(typeXmlValue("None", schema, "count")).toBeNull();
    expect(typeXmlValue("null", schema, "note")).toBeNull();
    expect(typeXmlValue("hello", schema, "note")).toBe("hello");
    expect(typeXmlValue("[1]", schema, "items")).toEqual([1]);
    expect(typeXmlValue("42", schema, "either")).toBe(42);
    expect(typeXmlValue("some text", schema, "mixed")).toBe("some text");
    expect(typeXmlValue("2", schema, "level")).toBe(2);
    expect(typeXmlValue("c", schema, "unit")).toBe("c");
    expect(typeXmlValue("null", schema, "legacy")).toBeNull();
  });

  it("parses JSON when the schema says nothing about the key, else keeps the text", () => {
    expect(typeXmlValue("42", undefined, "k")).toBe(42);
    expect(typeXmlValue('{"a": 1}', { properties: {} }, "k")).toEqual({ a: 1 });
    expect(typeXmlValue("02134", undefined, "zip")).toBe("02134");
    expect(typeXmlValue("plain words", { properties: { k: { description: "no type" } } }, "k")).toBe(
      "plain words",
    );
  });
});

describe("qwen3CoderXmlFormat", () => {
  // vLLM tests/tool_parsers/test_qwen3coder_tool_parser.py: single_tool_with_content, parallel_tools.
  it("reads calls with the prose before them, several in a row", () => {
    const one = (city: string) =>
      `<tool_call>\n<function=get_weather>\n<parameter=city>\n${city}\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>`;
    const match = read(
      qwen3CoderXmlFormat,
      `Sure! Let me check the weather for you.${one("Dallas")}\n${one("Orlando")}`,
    );
    expect(match).toEqual({
      calls: [
        { name: "get_weather", arguments: { city: "Dallas", days: 3 }, complete: true },
        { name: "get_weather", arguments: { city: "Orlando", days: 3 }, complete: true },
      ],
      prose: "Sure! Let me check the weather for you.",
    });
  });

  // vLLM test_qwen3coder: single_tool_multiline_param (an object spread over lines), typed params.
  it("types values from the schema: integer, boolean, array, multi-line object", () => {
    const match = read(
      qwen3CoderXmlFormat,
      "<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n" +
        '<parameter=dimensions>\n{"width": 10, \n "height": 20}\n</parameter>\n<parameter=precision>\n2\n</parameter>\n' +
        "</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=metric>\ntrue\n</parameter>\n" +
        '<parameter=tags>\n["rain", "wind"]\n</parameter>\n</function>\n</tool_call>',
    );
    expect(match?.calls.map((c) => c.arguments)).toEqual([
      { shape: "rectangle", dimensions: { width: 10, height: 20 }, precision: 2 },
      { metric: true, tags: ["rain", "wind"] },
    ]);
  });

  // vLLM test_extract_tool_calls_fallback_no_tags and test_extract_tool_calls_missing_closing_parameter_tag.
  it("reads calls without the <tool_call> wrapper or with a </parameter> missing", () => {
    expect(
      read(qwen3CoderXmlFormat, "<function=get_weather>\n<parameter=city>\nDallas\n</parameter>\n</function>")
        ?.calls,
    ).toEqual([{ name: "get_weather", arguments: { city: "Dallas" }, complete: true }]);
    const missing = read(
      qwen3CoderXmlFormat,
      "Let me check the weather for you:\n<tool_call>\n<function=get_weather>\n<parameter=city>\nDallas\n" +
        "<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>",
    );
    expect(missing).toEqual({
      calls: [{ name: "get_weather", arguments: { city: "Dallas", days: 2 }, complete: true }],
      prose: "Let me check the weather for you:",
    });
  });

  // vLLM qwen3coder _find_true_param_end: a </parameter> is structural only when the next parameter, the
  // function's close or the wrapper's close follows it, so a value may contain the tag as text.
  it("keeps a literal </parameter> inside a value", () => {
    const match = read(
      qwen3CoderXmlFormat,
      '<tool_call>\n<function=bash>\n<parameter=command>\necho "</parameter>" > x.xml\n</parameter>\n</function>\n</tool_call>',
    );
    expect(match?.calls[0]?.arguments).toEqual({ command: 'echo "</parameter>" > x.xml' });
  });

  it("decides completeness: cut inside a parameter is incomplete, a closed function without </tool_call> is not", () => {
    const cut = read(qwen3CoderXmlFormat, "<tool_call>\n<function=get_weather>\n<parameter=city>\nDal");
    expect(cut?.calls).toEqual([{ name: "get_weather", arguments: { city: "Dal" }, complete: false }]);
    const closedFunction = read(
      qwen3CoderXmlFormat,
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n",
    );
    expect(closedFunction?.calls[0]?.complete).toBe(true);
    expect(read(qwen3CoderXmlFormat, "<tool_call>\n<function=get_weather>\n")?.calls[0]?.complete).toBe(
      false,
    );
    expect(read(qwen3CoderXmlFormat, "<tool_call>\n<function=get_wea")?.calls[0]?.complete).toBe(false);
  });

  // vLLM qwen3coder _is_valid_function_name: an unrendered template is not a call; a tag mentioned in
  // prose with nothing after it that belongs to a call is not one either.
  it("leaves template leftovers and mentions as prose", () => {
    expect(read(qwen3CoderXmlFormat, "<function={{ tc.name }}>\n</function>")).toBeUndefined();
    expect(read(qwen3CoderXmlFormat, "Use <function=get_weather> tags to call tools.")).toBeUndefined();
    expect(read(qwen3CoderXmlFormat, "This is a test response without any tool calls")).toBeUndefined();
  });

  it("marks a call incomplete until its </function> is written, even with its parameters closed", () => {
    const open = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n";
    expect(read(qwen3CoderXmlFormat, open)?.calls).toEqual([
      { name: "get_weather", arguments: { city: "Paris" }, complete: false },
    ]);
    expect(read(qwen3CoderXmlFormat, `${open}</tool_call>`)?.calls[0]?.complete).toBe(false);
    expect(read(qwen3CoderXmlFormat, `${open}</function>`)?.calls[0]?.complete).toBe(true);
    // A call that runs into the next one was not finished; the next one keeps its own parameters.
    const next = `${open}<function=get_time>\n</function>`;
    expect(read(qwen3CoderXmlFormat, next)?.calls).toEqual([
      { name: "get_weather", arguments: { city: "Paris" }, complete: false },
      { name: "get_time", arguments: {}, complete: true },
    ]);
  });

  it("returns promptly on hostile input", () => {
    hostile(qwen3CoderXmlFormat, "<function=", "<function=get_weather>\n<parameter=tags>\n");
    expect(
      read(qwen3CoderXmlFormat, "<function=get_weather>\n<parameter=city>\n".repeat(50_000))?.calls,
    ).toHaveLength(1);
  });
});

describe("minimaxXmlFormat", () => {
  // vLLM tests/tool_parsers/test_minimax_m2_tool_parser.py: test_content_before_tool_call,
  // test_multiple_params, test_different_functions.
  it("reads invokes inside <minimax:tool_call>, typed from the schema, with prose before", () => {
    const match = read(
      minimaxXmlFormat,
      'Let me check. <minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Seattle</parameter>\n' +
        '<parameter name="days">5</parameter>\n</invoke>\n<invoke name="get_time">\n</invoke>\n</minimax:tool_call>',
    );
    expect(match).toEqual({
      calls: [
        { name: "get_weather", arguments: { city: "Seattle", days: 5 }, complete: true },
        { name: "get_time", arguments: {}, complete: true },
      ],
      prose: "Let me check.",
    });
  });

  it("reads values trimmed and typed (boolean, array) and a bare invoke without the wrapper", () => {
    const match = read(
      minimaxXmlFormat,
      '<invoke name="get_weather"><parameter name="metric">\n false \n</parameter><parameter name="tags">["a"]</parameter></invoke>',
    );
    expect(match?.calls).toEqual([
      { name: "get_weather", arguments: { metric: false, tags: ["a"] }, complete: true },
    ]);
  });

  it("marks an invoke cut inside a parameter incomplete, one whose </invoke> closed complete", () => {
    expect(
      read(minimaxXmlFormat, '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Sea')
        ?.calls,
    ).toEqual([{ name: "get_weather", arguments: { city: "Sea" }, complete: false }]);
    expect(
      read(
        minimaxXmlFormat,
        '<minimax:tool_call><invoke name="get_time"><parameter name="tz">UTC</parameter></invoke>',
      )?.calls[0]?.complete,
    ).toBe(true);
  });

  it("marks an invoke incomplete until its </invoke> is written", () => {
    const open =
      '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n';
    expect(read(minimaxXmlFormat, open)?.calls).toEqual([
      { name: "get_weather", arguments: { city: "Paris" }, complete: false },
    ]);
    expect(read(minimaxXmlFormat, `${open}</minimax:tool_call>`)?.calls[0]?.complete).toBe(false);
    expect(read(minimaxXmlFormat, `${open}</invoke>`)?.calls[0]?.complete).toBe(true);
  });

  it("returns promptly on hostile input", () => {
    hostile(minimaxXmlFormat, "<invoke name=", '<invoke name="get_weather"><parameter name="tags">');
  });
});

describe("glm45Format", () => {
  // SGLang python/sglang/srt/function_call/glm47_moe_detector.py docstring (GLM-4.7/5, no newlines).
  it("reads GLM-4.7 calls written without newlines", () => {
    const match = read(
      glm45Format,
      "<tool_call>get_weather<arg_key>city</arg_key><arg_value>北京</arg_value><arg_key>days</arg_key>" +
        "<arg_value>2</arg_value></tool_call><tool_call>get_weather<arg_key>city</arg_key><arg_value>上海</arg_value></tool_call>",
    );
    expect(match).toEqual({
      calls: [
        { name: "get_weather", arguments: { city: "北京", days: 2 }, complete: true },
        { name: "get_weather", arguments: { city: "上海" }, complete: true },
      ],
      prose: "",
    });
  });

  // vLLM glm4_moe_tool_parser (GLM-4.5/4.6 with newlines; values trimmed, non-strings deserialized).
  it("reads GLM-4.5 calls with newlines, typed values and prose around", () => {
    const match = read(
      glm45Format,
      "I'll check both.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n" +
        '<arg_key>metric</arg_key>\n<arg_value>true</arg_value>\n<arg_key>tags</arg_key>\n<arg_value>["x"]</arg_value>\n' +
        "</tool_call>\n<tool_call>get_time\n</tool_call>\nDone.",
    );
    expect(match).toEqual({
      calls: [
        { name: "get_weather", arguments: { city: "Paris", metric: true, tags: ["x"] }, complete: true },
        { name: "get_time", arguments: {}, complete: true },
      ],
      prose: "I'll check both.\nDone.",
    });
  });

  it("leaves Hermes JSON and Qwen3-Coder bodies of <tool_call> to their formats", () => {
    expect(
      read(glm45Format, '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>'),
    ).toBeUndefined();
    expect(read(glm45Format, "<tool_call>\n<function=get_time>\n</function>\n</tool_call>")).toBeUndefined();
    expect(read(glm45Format, "Wrap calls in <tool_call> tags.")).toBeUndefined();
  });

  it("marks a call incomplete until its </tool_call> is written (cut in a value, after its name or after a value)", () => {
    expect(
      read(glm45Format, "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Par")?.calls,
    ).toEqual([{ name: "get_weather", arguments: { city: "Par" }, complete: false }]);
    expect(read(glm45Format, "<tool_call>get_weather\n")?.calls[0]?.complete).toBe(false);
    const valueClosed = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Rome</arg_value>";
    expect(read(glm45Format, valueClosed)?.calls).toEqual([
      { name: "get_weather", arguments: { city: "Rome" }, complete: false },
    ]);
    expect(read(glm45Format, `${valueClosed}</tool_call>`)?.calls[0]?.complete).toBe(true);
  });

  it("returns promptly on hostile input", () => {
    hostile(glm45Format, "<tool_call>", "<tool_call>get_weather<arg_key>tags</arg_key><arg_value>");
    expect(
      read(
        glm45Format,
        `<tool_call>get_weather${"<arg_key>a</arg_key><arg_value>1</arg_value>".repeat(50_000)}`,
      )?.calls,
    ).toHaveLength(1);
  });
});

describe("deepseekDsmlFormat", () => {
  const FC_START = "<｜DSML｜function_calls>";
  const FC_END = "</｜DSML｜function_calls>";
  const INV = (name: string) => `<｜DSML｜invoke name="${name}">`;
  const INV_END = "</｜DSML｜invoke>";
  const PARAM = (name: string, value: string, string = true) =>
    `<｜DSML｜parameter name="${name}" string="${string}">${value}</｜DSML｜parameter>`;

  // vLLM tests/tool_parsers/test_deepseekv32_tool_parser.py: test_content_before_tool_call,
  // test_multiple_tools, test_single_tool_no_params.
  it("reads invokes in a function_calls block with the prose before it", () => {
    const match = read(
      deepseekDsmlFormat,
      `Sure, let me check! ${FC_START}\n${INV("get_weather")}\n${PARAM("city", "SF")}\n${INV_END}\n` +
        `${INV("get_weather")}\n${PARAM("city", "NYC")}\n${INV_END}\n${INV("get_time")}\n${INV_END}\n${FC_END}`,
    );
    expect(match).toEqual({
      calls: [
        { name: "get_weather", arguments: { city: "SF" }, complete: true },
        { name: "get_weather", arguments: { city: "NYC" }, complete: true },
        { name: "get_time", arguments: {}, complete: true },
      ],
      prose: "Sure, let me check!",
    });
  });

  // vLLM test_type_conversion_in_non_streaming, test_string_attr_true_coerced_by_schema,
  // test_object_and_array_params.
  it('reads string="false" values as JSON and lets the schema type string="true" ones', () => {
    const match = read(
      deepseekDsmlFormat,
      `${FC_START}\n${INV("get_weather")}\n${PARAM("metric", "true", false)}\n${PARAM("days", "42")}\n` +
        `${PARAM("tags", '["a", "b"]', false)}\n${PARAM("extra", '{"k": 1}', false)}\n${PARAM("city", '"Rome"', false)}\n` +
        `${INV_END}\n${FC_END}`,
    );
    expect(match?.calls[0]?.arguments).toEqual({
      metric: true,
      days: 42,
      tags: ["a", "b"],
      extra: { k: 1 },
      city: "Rome",
    });
  });

  it("marks an invoke cut inside a parameter incomplete and ignores text without DSML calls", () => {
    expect(
      read(
        deepseekDsmlFormat,
        `${FC_START}\n${INV("get_weather")}\n<｜DSML｜parameter name="city" string="true">Ber`,
      )?.calls,
    ).toEqual([{ name: "get_weather", arguments: { city: "Ber" }, complete: false }]);
    expect(read(deepseekDsmlFormat, "just some text")).toBeUndefined();
    expect(read(deepseekDsmlFormat, "The ｜DSML｜ token marks calls.")).toBeUndefined();
  });

  it("marks an invoke incomplete until its </｜DSML｜invoke> is written", () => {
    const open =
      '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n';
    expect(read(deepseekDsmlFormat, open)?.calls).toEqual([
      { name: "get_weather", arguments: { city: "Paris" }, complete: false },
    ]);
    expect(read(deepseekDsmlFormat, `${open}</｜DSML｜function_calls>`)?.calls[0]?.complete).toBe(false);
    expect(read(deepseekDsmlFormat, `${open}</｜DSML｜invoke>`)?.calls[0]?.complete).toBe(true);
  });

  it("returns promptly on hostile input", () => {
    hostile(
      deepseekDsmlFormat,
      "<｜DSML｜invoke name=",
      `${INV("get_weather")}<｜DSML｜parameter name="tags" string="false">`,
    );
  });
});

/** 200k repeated markers, 10k deep brackets inside a value, a 1 MB unclosed value: each returns. */
function hostile(format: ToolFormat, marker: string, openValue: string): void {
  const repeated = read(format, marker.repeat(200_000));
  expect(repeated === undefined || repeated.calls.length <= 64).toBe(true);
  const deep = read(format, `${openValue}${"[".repeat(10_000)}`);
  expect(deep?.calls[0]?.complete ?? false).toBe(false);
  const long = read(format, `${openValue}${"a".repeat(1_000_000)}`);
  expect(long?.calls[0]?.complete).toBe(false);
}
