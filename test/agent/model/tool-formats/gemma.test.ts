import { describe, expect, it } from "vitest";
import { gemmaFormat } from "../../../../src/agent/model/tool-formats/gemma.ts";
import { gemma4Format } from "../../../../src/agent/model/tool-formats/gemma4.ts";
import { argsOf, read } from "./schema-context.ts";

describe("gemmaFormat (Gemma 2/3 ```tool_code)", () => {
  // ai.google.dev/gemma/docs (function calling, meme-generator guide): "If a tool is needed, Gemma will
  // generate a code wrapped with ```tool_code```"; Gemini-style `print(default_api.f(…))` as seen in
  // public agent transcripts.
  it("reads the calls of a tool_code block and keeps the prose around it", () => {
    const match = read(
      gemmaFormat,
      'I\'ll look that up.\n```tool_code\nprint(default_api.get_weather(city="SF", days=3))\nget_time()\n```\nOne moment.',
    );
    expect(match).toEqual({
      calls: [
        { name: "default_api.get_weather", arguments: { city: "SF", days: 3 }, complete: true },
        { name: "get_time", arguments: {}, complete: true },
      ],
      prose: "I'll look that up.\nOne moment.",
    });
  });

  it("reads a list of calls in the block (Gemma prompted with the pythonic list format)", () => {
    const match = read(
      gemmaFormat,
      "```tool_code\n[get_weather(city='Paris', metric=True), get_time()]\n```",
    );
    expect(match?.calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
  });

  // The same fence carries ordinary code (ARC-style transcripts: ```tool_code\nimport numpy as np …).
  it("leaves code that is not a call of an offered tool as prose", () => {
    expect(read(gemmaFormat, "```tool_code\nimport numpy as np\nprint(np.zeros(3))\n```")).toBeUndefined();
    expect(read(gemmaFormat, "```tool_code\nprint(launch_missiles(target='moon'))\n```")).toBeUndefined();
    expect(read(gemmaFormat, "```tool_code\nprint(get_weather('SF'))\n```")).toBeUndefined();
    expect(read(gemmaFormat, "```python\nget_weather(city='SF')\n```")).toBeUndefined();
  });

  it("marks a call cut off inside an unclosed block as incomplete", () => {
    const match = read(gemmaFormat, "```tool_code\nget_weather(city='Par");
    expect(match?.calls).toEqual([{ name: "get_weather", arguments: {}, complete: false }]);
  });

  it("keeps a last line cut off as an incomplete call, never dropping it", () => {
    const cutName = read(gemmaFormat, "```tool_code\nget_weather(city='Paris')\nget_ti");
    expect(cutName?.calls.map((c) => [c.name, c.complete])).toEqual([
      ["get_weather", true],
      ["get_ti", false],
    ]);
    const cutArgs = read(gemmaFormat, "```tool_code\nget_weather(city='Paris')\nget_weather(city='Ro");
    expect(cutArgs?.calls.map((c) => c.complete)).toEqual([true, false]);
    const cutPrint = read(gemmaFormat, "```tool_code\nprint(get_weather(city='Paris')");
    expect(cutPrint?.calls).toEqual([{ name: "get_weather", arguments: { city: "Paris" }, complete: false }]);
  });

  it("unwraps one print( only: nested prints are no tool call, and never overflow the stack", () => {
    expect(read(gemmaFormat, "```tool_code\nprint(print(get_time()))\n```")).toBeUndefined();
    expect(() => read(gemmaFormat, `\`\`\`tool_code\n${"print(".repeat(8000)}`)).not.toThrow();
    expect(
      read(gemmaFormat, `\`\`\`tool_code\n${"print(".repeat(8000)}${")".repeat(8000)}\n\`\`\``),
    ).toBeUndefined();
  });

  it("returns promptly on hostile input", () => {
    expect(read(gemmaFormat, "```tool_code".repeat(200_000))).toBeUndefined();
    expect(read(gemmaFormat, "```tool_code\n".repeat(200_000))).toBeUndefined();
    expect(read(gemmaFormat, `\`\`\`tool_code\nget_weather(tags=${"[".repeat(10_000)}`)).toBeUndefined();
    const open = read(gemmaFormat, `\`\`\`tool_code\nget_weather(city='${"a".repeat(1_000_000)}`);
    expect(open?.calls[0]?.complete).toBe(false);
  });
});

describe("gemma4Format (Gemma 4 native calls)", () => {
  // vLLM tests/tool_parsers/test_gemma4_tool_parser.py: test_single_tool_call, test_text_before_tool_call,
  // test_multiple_tool_calls.
  it("reads calls between <|tool_call> and <tool_call|> with the prose before them", () => {
    const match = read(
      gemma4Format,
      'Let me check the weather for you. <|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>' +
        '<|tool_call>call:get_time{location:<|"|>London<|"|>}<tool_call|>',
    );
    expect(match).toEqual({
      calls: [
        { name: "get_weather", arguments: { city: "Paris" }, complete: true },
        { name: "get_time", arguments: { location: "London" }, complete: true },
      ],
      prose: "Let me check the weather for you.",
    });
  });

  // vLLM test_gemma4_tool_parser.py: test_nested_arguments, test_tool_call_with_number_and_boolean,
  // test_string_value_with_comma, test_string_delimited_dict_key, test_no_arguments.
  it("types values by the syntax: strings, numbers, booleans, null, nested objects and arrays", () => {
    const match = read(
      gemma4Format,
      "<|tool_call>call:get_weather{" +
        'city:<|"|>Paris, France<|"|>,days:3,metric:true,score:3.14,none:null,' +
        'tags:[<|"|>a<|"|>,<|"|>b<|"|>],nested:{inner:<|"|>value<|"|>},map:{<|"|>3<|"|>:<|"|>new text<|"|>}}' +
        "<tool_call|><|tool_call>call:get_time{}<tool_call|>",
    );
    expect(match?.calls.map((c) => argsOf(c.arguments))).toEqual([
      {
        city: "Paris, France",
        days: 3,
        metric: true,
        score: 3.14,
        none: null,
        tags: ["a", "b"],
        nested: { inner: "value" },
        map: { "3": "new text" },
      },
      {},
    ]);
  });

  // vLLM tests/tool_parsers/test_gemma4_regex_and_bare_calls.py: <turn|> closure, a stray colon after the
  // opener, hyphenated and dotted names, and a bare call right after the thought channel.
  it("accepts the variations Gemma 4 writes", () => {
    const turn = read(gemma4Format, '<|tool_call>call:bash{command:<|"|>-batch -ex run<|"|>}<turn|>');
    expect(turn).toEqual({
      calls: [{ name: "bash", arguments: { command: "-batch -ex run" }, complete: true }],
      prose: "",
    });
    expect(read(gemma4Format, '<|tool_call>:call:bash{command:<|"|>pytest<|"|>}')?.calls[0]?.name).toBe(
      "bash",
    );
    expect(read(gemma4Format, '<|tool_call>call:web-search{q:<|"|>x<|"|>}<tool_call|>')?.calls[0]?.name).toBe(
      "web-search",
    );
    const thought = read(
      gemma4Format,
      '<|channel>thought\nI need to list the files.\n<channel|>call:bash{command:<|"|>ls -la /work<|"|>}',
    );
    expect(thought).toEqual({
      calls: [{ name: "bash", arguments: { command: "ls -la /work" }, complete: true }],
      prose: "",
    });
  });

  it("keeps the thought channel out of the prose when a marked call follows", () => {
    const match = read(
      gemma4Format,
      '<|channel>thought\nNeed weather.<channel|>Checking.<|tool_call>call:get_weather{city:<|"|>Tokyo<|"|>}<tool_call|>',
    );
    expect(match?.prose).toBe("Checking.");
  });

  // Servers that skip special tokens drop <|tool_call> and <|"|>: the bare form is claimed only as the
  // whole text with offered names (vLLM's fallback accepts it after prose; we do not, so prose that
  // mentions `call:` stays prose). A stripped string that held a comma is put back together.
  it("claims stripped bare calls only as the whole text naming offered tools", () => {
    expect(read(gemma4Format, "call:get_weather{city:Paris, France,days:3}")).toEqual({
      calls: [{ name: "get_weather", arguments: { city: "Paris, France", days: 3 }, complete: true }],
      prose: "",
    });
    expect(read(gemma4Format, 'some prose\ncall:bash{command:<|"|>make -j8<|"|>}')).toBeUndefined();
    expect(read(gemma4Format, "call:rm_rf{path:/}")).toBeUndefined();
    expect(read(gemma4Format, "I'll return your call: tomorrow works.")).toBeUndefined();
  });

  // vLLM test_incomplete_tool_call leaves the text as content; here it is an incomplete call (never run),
  // so a reply cut off by the token limit is not shown to the user as raw syntax.
  it("marks a call cut off before its braces closed as incomplete", () => {
    const match = read(gemma4Format, 'I will check.<|tool_call>call:get_weather{city:<|"|>London');
    expect(match).toEqual({
      calls: [{ name: "get_weather", arguments: { city: "London" }, complete: false }],
      prose: "I will check.",
    });
    expect(read(gemma4Format, '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}')?.calls[0]?.complete).toBe(
      true,
    );
  });

  it("returns promptly on hostile input", () => {
    expect(read(gemma4Format, "<|tool_call>".repeat(200_000))).toBeUndefined();
    expect(read(gemma4Format, "call:".repeat(200_000))).toBeUndefined();
    const deep = read(gemma4Format, `<|tool_call>call:get_weather{a:${"{".repeat(10_000)}`);
    expect(deep?.calls[0]?.complete).toBe(false);
    const closedDeep = read(
      gemma4Format,
      `<|tool_call>call:f{a:${"[".repeat(10_000)}${"]".repeat(10_000)}}<tool_call|>`,
    );
    expect(typeof closedDeep?.calls[0]?.arguments).toBe("string"); // too deep to type: left as text
    const open = read(gemma4Format, `<|tool_call>call:bash{command:<|"|>${"a".repeat(1_000_000)}`);
    expect(open?.calls[0]?.complete).toBe(false);
  });
});

describe("gemma4Format reading FunctionGemma's tokens", () => {
  it("reads <start_function_call>call:x{k:<escape>v<escape>}<end_function_call>, several, with prose", () => {
    const m = read(
      gemma4Format,
      "Checking.<start_function_call>call:get_weather{city:<escape>Paris, FR<escape>,days:3}<end_function_call><start_function_call>call:get_time{}<end_function_call>",
    );
    expect(m?.calls.map((c) => [c.name, argsOf(c.arguments), c.complete])).toEqual([
      ["get_weather", { city: "Paris, FR", days: 3 }, true],
      ["get_time", {}, true],
    ]);
    expect(m?.prose).toBe("Checking.");
  });

  it("a call cut off inside its braces is incomplete", () => {
    const m = read(gemma4Format, "<start_function_call>call:get_weather{city:<escape>Par");
    expect(m?.calls.map((c) => c.complete)).toEqual([false]);
  });
});
