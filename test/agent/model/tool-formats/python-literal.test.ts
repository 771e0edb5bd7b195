import { describe, expect, it } from "vitest";
import {
  parsePythonCall,
  parsePythonCallList,
} from "../../../../src/agent/model/tool-formats/python-literal.ts";

function calls(text: string) {
  const parsed = parsePythonCallList(text);
  if (!parsed.ok) throw new Error(`not parsed: ${parsed.error}`);
  return parsed;
}

describe("parsePythonCallList", () => {
  // vLLM tests/tool_parsers/test_pythonic_tool_parser.py: SIMPLE_FUNCTION_OUTPUT (from Meta's Llama 3.2
  // prompt-format doc) and MORE_TYPES_FUNCTION_OUTPUT, written as one parallel list.
  it("reads vLLM's simple and more-types calls as a parallel list", () => {
    const parsed = calls(
      "[get_weather(city='San Francisco', metric='celsius'), register_user(name='John Doe', age=37, " +
        "address={'city': 'San Francisco', 'state': 'CA'}, role=None, passed_test=True, aliases=['John', 'Johnny'])]",
    );
    expect(parsed.closed).toBe(true);
    expect(parsed.calls.map((c) => [c.name, c.arguments, c.complete])).toEqual([
      ["get_weather", { city: "San Francisco", metric: "celsius" }, true],
      [
        "register_user",
        {
          name: "John Doe",
          age: 37,
          address: { city: "San Francisco", state: "CA" },
          role: null,
          passed_test: true,
          aliases: ["John", "Johnny"],
        },
        true,
      ],
    ]);
  });

  // vLLM test_pythonic_tool_parser.py: PARAMETERLESS, EMPTY_DICT, EMPTY_LIST, ESCAPED_STRING.
  it("reads empty argument lists, empty containers and escaped quotes", () => {
    expect(calls("[get_weather()]").calls[0]!.arguments).toEqual({});
    expect(calls("[do_something_cool(additional_data={})]").calls[0]!.arguments).toEqual({
      additional_data: {},
    });
    expect(calls("[do_something_cool(steps=[])]").calls[0]!.arguments).toEqual({ steps: [] });
    expect(
      calls(String.raw`[get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')]`).calls[0]!
        .arguments,
    ).toEqual({ city: "Martha's Vineyard", metric: '"cool units"' });
  });

  // vLLM test_bad_sibling_call_does_not_drop_good_calls / test_non_finite_argument_rejected, and SGLang
  // lfm2_detector (positional arguments are rejected, not silently dropped).
  it("marks well-formed calls that cannot be tool calls as rejected and keeps their siblings", () => {
    const parsed = calls("[bad(x=b'z'), calc(x=1e999), pos('SF'), ref(x=foo), get_weather(city='SF')]");
    expect(parsed.calls.map((c) => [c.name, c.rejected !== undefined])).toEqual([
      ["bad", true],
      ["calc", true],
      ["pos", true],
      ["ref", true],
      ["get_weather", false],
    ]);
    expect(parsed.calls[2]!.rejected).toMatch(/positional/);
  });

  // vLLM test_unrecoverable_block_still_reports_no_tool_call and test_streaming_mismatched_brackets.
  it("returns an error value for text that is not Python", () => {
    expect(parsePythonCallList("[f(a='x 'y' 'z), g(b='p 'q' 'r)]").ok).toBe(false);
    expect(parsePythonCallList("[foo(x=1])]").ok).toBe(false);
    expect(parsePythonCallList("How can I help you today?").ok).toBe(false);
  });

  // SGLang lfm2_detector: JSON spellings, tuples, sets, signed numbers, leading zeros, raw newlines in
  // strings, dotted names and **{…} are all accepted from LFM2.
  it("accepts the Python LFM2 writes beyond ast.literal_eval's happy path", () => {
    const [call] = calls(
      "[fs.write(ok=true, none=null, pair=(1, 2), one=(3), uniq={'a'}, neg=-5, month=07, " +
        "text='line one\nline two', **{'extra': 1.5e2})]",
    ).calls;
    expect(call!.name).toBe("fs.write");
    expect(call!.arguments).toEqual({
      ok: true,
      none: null,
      pair: [1, 2],
      one: 3,
      uniq: ["a"],
      neg: -5,
      month: 7,
      text: "line one\nline two",
      extra: 150,
    });
  });

  it("reads Python string forms: triple quotes, raw, escapes, adjacent literals, plain f-strings", () => {
    const [call] = calls(
      String.raw`[f(a="""multi
line""", b=r'C:\path\n', c='tab\tA\x41\u00e9\101', d='con' "cat", e=f'{{x}}', g=0x1F, h=1_000, i=.5)]`,
    ).calls;
    expect(call!.arguments).toEqual({
      a: "multi\nline",
      b: "C:\\path\\n",
      c: "tab\tAAéA",
      d: "concat",
      e: "{x}",
      g: 31,
      h: 1000,
      i: 0.5,
    });
    expect(calls("[f(x=f'{name}')]").calls[0]!.rejected).toMatch(/f-strings/);
  });

  it("keeps what was read when the text ends inside the list, no call of it complete", () => {
    const parsed = calls("[get_time(), get_weather(city='San Fr");
    expect(parsed.closed).toBe(false);
    expect(parsed.calls.map((c) => [c.name, c.complete])).toEqual([
      ["get_time", false],
      ["get_weather", false],
    ]);
    const unclosed = calls("[get_weather(city='SF')");
    expect(unclosed.closed).toBe(false);
    expect(unclosed.calls.map((c) => c.complete)).toEqual([false]);
    // Cut inside a name: the name so far, incomplete (it is never run, and never shown as an answer).
    expect(calls("[get_wea").calls.map((c) => [c.name, c.complete])).toEqual([["get_wea", false]]);
  });

  it("reads a bare call and unwraps print(…) when asked (Gemma tool_code)", () => {
    expect(calls("get_weather(city='SF')").calls[0]!.arguments).toEqual({ city: "SF" });
    const printed = parsePythonCall('print(default_api.get_weather(city="SF"))', 0, { unwrapPrint: true });
    expect(printed.ok && printed.calls.map((c) => [c.name, c.arguments])).toEqual([
      ["default_api.get_weather", { city: "SF" }],
    ]);
    const plain = parsePythonCall("print('hello')", 0, { unwrapPrint: true });
    expect(plain.ok).toBe(false);
  });

  it("reads dict keys as JSON writes them", () => {
    expect(calls("[f(d={'a': [1, (2,), {}], None: True, 3: 'x'})]").calls[0]!.arguments).toEqual({
      d: { a: [1, [2], {}], null: true, "3": "x" },
    });
  });

  it("starts where it is told and reports where the list ended", () => {
    const text = "calls: [get_time()] and more";
    const parsed = parsePythonCallList(text, 7);
    expect(parsed.ok && text.slice(parsed.end)).toBe(" and more");
  });

  it("unwraps at most one print( and never throws on deep nesting", () => {
    const twice = parsePythonCallList("print(print(get_time()))", 0, { unwrapPrint: true });
    expect(twice.ok && twice.calls.map((c) => [c.name, c.rejected !== undefined])).toEqual([["print", true]]);
    const deep = `${"print(".repeat(8000)}get_time()${")".repeat(8000)}`;
    for (const text of ["print(".repeat(8000), deep]) {
      expect(() => parsePythonCallList(text, 0, { unwrapPrint: true })).not.toThrow();
    }
    expect(parsePythonCallList(deep, 0, { unwrapPrint: true }).ok).toBe(false);
  });

  it("returns promptly on hostile input", () => {
    const deep = parsePythonCallList(`[f(x=${"[".repeat(10_000)}`);
    expect(deep.ok === false && deep.error).toMatch(/deeper than 64/);
    const nested = parsePythonCallList("f(x=".repeat(200_000));
    expect(nested.ok).toBe(false);
    const unclosed = calls(`[f(x='${"a".repeat(1_000_000)}`);
    expect(unclosed.closed).toBe(false);
    expect(unclosed.calls[0]!.complete).toBe(false);
    // More than 64 calls is no model's call list: refused at the 65th, without reading the rest.
    const many = parsePythonCallList(`[${"g(), ".repeat(200_000)}]`);
    expect(many.ok === false && many.error).toBe("more than 64 calls");
    expect(calls(`[${"g(), ".repeat(64)}]`).calls.length).toBe(64);
  });
});
