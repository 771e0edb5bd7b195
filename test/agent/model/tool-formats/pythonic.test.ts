import { describe, expect, it } from "vitest";
import { pythonicFormat } from "../../../../src/agent/model/tool-formats/pythonic.ts";
import { read } from "./schema-context.ts";

describe("pythonicFormat", () => {
  // vLLM tests/tool_parsers/test_pythonic_tool_parser.py parallel_calls (Llama 3.2 / ToolACE style).
  it("claims a bare list of calls to offered tools as the whole message", () => {
    const match = read(
      pythonicFormat,
      "[get_weather(city='San Francisco', days=3), register_user(name='John Doe', age=37, address={'city': 'SF'})]",
    );
    expect(match).toEqual({
      calls: [
        { name: "get_weather", arguments: { city: "San Francisco", days: 3 }, complete: true },
        {
          name: "register_user",
          arguments: { name: "John Doe", age: 37, address: { city: "SF" } },
          complete: true,
        },
      ],
      prose: "",
    });
  });

  // vLLM test_no_tool_call; the contract: a bare list is a call only when it is the whole text and names
  // only offered tools, so an example in an explanation or an unknown name stays prose.
  it("leaves prose, examples and unknown names alone", () => {
    expect(read(pythonicFormat, "How can I help you today?")).toBeUndefined();
    expect(read(pythonicFormat, "You could call [get_weather(city='SF')] for that.")).toBeUndefined();
    expect(read(pythonicFormat, "[delete_everything(confirm=True)]")).toBeUndefined();
    expect(read(pythonicFormat, "[1, 2, 3]")).toBeUndefined();
    expect(read(pythonicFormat, "Hello (world)")).toBeUndefined();
  });

  // vLLM tests/tool_parsers/test_llama4_pythonic_tool_parser.py: PYTHON_TAG_FUNCTION_OUTPUT and the
  // parallel case whose <|python_end|> was never written.
  // vLLM issue #22917: Llama 4 writes a sentence first, then the list.
  it("claims a list on lines of its own that ends the message after prose, unless it is an example", () => {
    expect(read(pythonicFormat, "I need the weather first.\n[get_weather(city='SF'), get_time()]")).toEqual({
      calls: [
        { name: "get_weather", arguments: { city: "SF" }, complete: true },
        { name: "get_time", arguments: {}, complete: true },
      ],
      prose: "I need the weather first.",
    });
    expect(read(pythonicFormat, "For example:\n[get_weather(city='SF')]")).toBeUndefined();
    expect(read(pythonicFormat, "I would run\n[get_weather(city='SF')]\nif you say so.")).toBeUndefined();
    expect(read(pythonicFormat, "Doing it.\n[delete_everything(confirm=True)]")).toBeUndefined();
    expect(read(pythonicFormat, "Calling: [get_weather(city='SF')]")).toBeUndefined();
  });

  it("reads Llama 4's <|python_start|> blocks, closed or not", () => {
    expect(
      read(pythonicFormat, "<|python_start|>[get_weather(city='LA', metric=True)]<|python_end|>"),
    ).toEqual({
      calls: [{ name: "get_weather", arguments: { city: "LA", metric: true }, complete: true }],
      prose: "",
    });
    const open = read(
      pythonicFormat,
      "Checking.<|python_start|>[get_weather(city='LA', days=2), register_user(name='Doe', age=9)]",
    );
    expect(open?.calls.map((c) => [c.name, c.complete])).toEqual([
      ["get_weather", true],
      ["register_user", true],
    ]);
    expect(open?.prose).toBe("Checking.");
  });

  // SGLang python/sglang/srt/function_call/lfm2_detector.py docstring: pythonic and JSON bodies.
  it("reads LFM2's <|tool_call_start|> blocks, pythonic or JSON, with prose around", () => {
    const pythonic = read(
      pythonicFormat,
      'Let me compute.<|tool_call_start|>[calculator(expression="5 * 7")]<|tool_call_end|>Done soon.',
    );
    expect(pythonic).toEqual({
      calls: [{ name: "calculator", arguments: { expression: "5 * 7" }, complete: true }],
      prose: "Let me compute.\nDone soon.",
    });
    const json = read(
      pythonicFormat,
      '<|tool_call_start|>[{"name": "calculator", "arguments": {"expression": "5 * 7"}}]<|tool_call_end|>',
    );
    expect(json?.calls).toEqual([{ name: "calculator", arguments: { expression: "5 * 7" }, complete: true }]);
  });

  // vLLM test_bad_sibling_call_does_not_drop_good_calls (inside markers, any name is a call).
  it("drops a call that is not a tool call and keeps its siblings", () => {
    const match = read(pythonicFormat, "<|python_start|>[bad(x=b'z'), get_weather(city='LA')]<|python_end|>");
    expect(match?.calls).toEqual([{ name: "get_weather", arguments: { city: "LA" }, complete: true }]);
    expect(read(pythonicFormat, "[get_weather(city=SF)]")).toBeUndefined();
  });

  it("marks every call of a list cut off by the end of the output incomplete", () => {
    const bare = read(pythonicFormat, "[get_time(), get_weather(city='San Fra");
    expect(bare?.calls.map((c) => [c.name, c.complete])).toEqual([
      ["get_time", false],
      ["get_weather", false],
    ]);
    // Cut after a comma: the call that closed belongs to a list the model never finished.
    const afterComma = read(pythonicFormat, "[get_weather(city='Paris'), ");
    expect(afterComma?.calls).toEqual([
      { name: "get_weather", arguments: { city: "Paris" }, complete: false },
    ]);
    const marked = read(pythonicFormat, "<|tool_call_start|>[get_weather(city='S");
    expect(marked?.calls).toEqual([{ name: "get_weather", arguments: {}, complete: false }]);
  });

  it("returns promptly on hostile input", () => {
    expect(read(pythonicFormat, "<|python_start|>".repeat(200_000))).toBeUndefined();
    expect(read(pythonicFormat, `[get_weather(tags=${"[".repeat(10_000)}`)).toBeUndefined();
    const open = read(pythonicFormat, `[get_weather(city='${"a".repeat(1_000_000)}`);
    expect(open?.calls[0]?.complete).toBe(false);
    expect(
      read(pythonicFormat, `${"<|tool_call_start|>[get_time()]<|tool_call_end|>".repeat(200)}`)?.calls,
    ).toHaveLength(64);
  });
});
