import { describe, expect, it } from "vitest";
import { harmonyFormat } from "../../../../src/agent/model/tool-formats/harmony.ts";
import { splitHarmony } from "../../../../src/agent/model/tool-formats/harmony-messages.ts";
import { argsOf, read } from "./schema-context.ts";

const THINKING = "<|channel|>analysis<|message|>I'm\nthinking<|end|>";

describe("harmonyFormat, raw special tokens", () => {
  // llama.cpp tests/test-chat.cpp, COMMON_CHAT_FORMAT_GPT_OSS cases (models/templates/openai-gpt-oss-120b.jinja).
  it("reads a commentary call after the analysis, leaving the reasoning out of the prose", () => {
    const match = read(
      harmonyFormat,
      `${THINKING}<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "SF", "days": 2}<|call|>`,
    );
    expect(match).toEqual({
      calls: [{ name: "functions.get_weather", arguments: '{"city": "SF", "days": 2}', complete: true }],
      prose: "",
    });
  });

  // llama.cpp test-chat.cpp: "Test tool calling in role header" (recipient before <|channel|>), a call
  // on the analysis channel, and <|message|> without <|constrain|>.
  it("accepts the recipient before the channel, on the analysis channel, without <|constrain|>", () => {
    const before = read(
      harmonyFormat,
      ' to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city": "Oslo"}',
    );
    expect(before?.calls).toEqual([
      { name: "functions.get_weather", arguments: '{"city": "Oslo"}', complete: true },
    ]);
    const analysis = read(
      harmonyFormat,
      `${THINKING}<|start|>assistant to=functions.get_weather<|channel|>analysis <|constrain|>json<|message|>{"days": 1}`,
    );
    expect(analysis?.calls.map((c) => [c.name, argsOf(c.arguments)])).toEqual([
      ["functions.get_weather", { days: 1 }],
    ]);
    const plain = read(harmonyFormat, "<|channel|>commentary to=functions.get_time<|message|>{}<|call|>");
    expect(plain?.calls[0]?.name).toBe("functions.get_time");
  });

  // llama.cpp test-chat.cpp: a commentary preamble without recipient is content, then the call.
  it("keeps commentary preambles and the final channel as prose", () => {
    const match = read(
      harmonyFormat,
      `${THINKING}<|start|>assistant<|channel|>commentary<|message|>Hello, world!\nWhat's up?<|end|>` +
        "<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>",
    );
    expect(match?.prose).toBe("Hello, world!\nWhat's up?");
    expect(match?.calls).toHaveLength(1);
  });

  // llama.cpp test-chat.cpp partial case: `{"arg1` with no <|call|> is a call still being written.
  it("marks a call whose JSON never closed and that has no end token as incomplete", () => {
    const match = read(
      harmonyFormat,
      `${THINKING}<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city`,
    );
    expect(match?.calls).toEqual([{ name: "functions.get_weather", arguments: '{"city', complete: false }]);
    const ended = read(
      harmonyFormat,
      '<|channel|>commentary to=functions.get_weather<|message|>{"city": "SF"}',
    );
    expect(ended?.calls[0]?.complete).toBe(true);
  });

  it("reads several call messages in one text, and not messages to built-in tools", () => {
    const match = read(
      harmonyFormat,
      '<|channel|>analysis to=browser.search<|message|>{"query": "x"}<|call|>' +
        '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "A"}<|call|>' +
        "<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>",
    );
    expect(match?.calls.map((c) => c.name)).toEqual(["functions.get_weather", "functions.get_time"]);
    expect(match?.prose).toBe("");
  });
});

describe("harmonyFormat, completeness", () => {
  it("marks JSON arguments that an end token cut off incomplete (an end token does not finish broken JSON)", () => {
    const raw = read(
      harmonyFormat,
      '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris", "days":<|call|>',
    );
    expect(raw?.calls.map((c) => c.complete)).toEqual([false]);
    const closed = read(
      harmonyFormat,
      '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "x <|call|> y"}<|call|>',
    );
    expect(closed?.calls.map((c) => [argsOf(c.arguments), c.complete])).toEqual([
      [{ city: "x <|call|> y" }, true],
    ]);
  });
});

describe("harmonyFormat, special tokens stripped", () => {
  // Stripped outputs quoted in public projects that recover them (gpt-oss served without a harmony
  // parser): "analysisWe need to retrieve context.assistantcommentary to=functions.retrieve_context
  // json{…}…assistantfinal…", and Cloudflare's "analysis: need to read file.<|end|><|start|>
  // assistantcommentary to=functions.read_file {…}<|call|>".
  it("reads calls from glued channel names and keeps only the final text as prose", () => {
    const match = read(
      harmonyFormat,
      'analysisWe need the weather.assistantcommentary to=functions.get_weather json{"city":"SF"}' +
        "assistantanalysisNow the time.assistantcommentary to=functions.get_time json{}" +
        "assistantfinalIt is sunny in SF.",
    );
    expect(match).toEqual({
      calls: [
        { name: "functions.get_weather", arguments: '{"city":"SF"}', complete: true },
        { name: "functions.get_time", arguments: "{}", complete: true },
      ],
      prose: "It is sunny in SF.",
    });
    const partly = read(
      harmonyFormat,
      'analysis: need the weather.<|end|><|start|>assistantcommentary to=functions.get_weather {"city": "Rome"}<|call|>',
    );
    expect(partly?.calls).toEqual([
      { name: "functions.get_weather", arguments: '{"city": "Rome"}', complete: true },
    ]);
  });

  // The brief's example and a glued content type (`to=functions.spl_funcjson{"n":6}` quoted in a public repo).
  it("reads a leading commentary header and a `json` glued to the name", () => {
    const constrained = read(
      harmonyFormat,
      'commentary to=functions.get_weather <|constrain|>json{"city":"SF"}',
    );
    expect(constrained?.calls).toEqual([
      { name: "functions.get_weather", arguments: '{"city":"SF"}', complete: true },
    ]);
    const glued = read(
      harmonyFormat,
      'analysisTwo calls.assistantcommentary to=functions.get_weatherjson{"days":3}',
    );
    expect(glued?.calls[0]?.name).toBe("functions.get_weather");
    const cut = read(harmonyFormat, 'commentary to=functions.get_weather json{"city":"S');
    expect(cut?.calls[0]?.complete).toBe(false);
  });

  it("leaves text without a call alone", () => {
    expect(read(harmonyFormat, "The answer is 42.")).toBeUndefined();
    expect(read(harmonyFormat, "analysisThinking.assistantfinalHello!")).toBeUndefined();
    expect(read(harmonyFormat, "Send it to=functions please")).toBeUndefined();
  });

  it("returns promptly on hostile input", () => {
    const repeated = read(harmonyFormat, "commentary to=functions.get_time json{}".repeat(200_000));
    expect(repeated?.calls).toHaveLength(64);
    expect(repeated?.prose.startsWith("commentary to=functions.get_time")).toBe(true); // past the cap: text
    const cutHeader = read(harmonyFormat, `${"<|start|>".repeat(200_000)}to=functions.get_time`);
    expect(cutHeader?.calls).toEqual([{ name: "functions.get_time", arguments: "", complete: false }]);
    const deep = read(harmonyFormat, `commentary to=functions.get_weather json${"[".repeat(10_000)}`);
    expect(deep?.calls[0]?.complete).toBe(false);
    const long = read(
      harmonyFormat,
      `commentary to=functions.get_weather json{"city":"${"a".repeat(1_000_000)}`,
    );
    expect(long?.calls[0]?.complete).toBe(false);
    expect(splitHarmony("assistantfinal".repeat(200_000)).final).toBe("");
  });
});

describe("splitHarmony", () => {
  it("separates the analysis channel from the answer, raw or stripped", () => {
    expect(
      splitHarmony(
        `${THINKING}<|start|>assistant<|channel|>final<|message|>Hello, world!\nWhat's up?<|return|>`,
      ),
    ).toEqual({ reasoning: "I'm\nthinking", final: "Hello, world!\nWhat's up?" });
    expect(splitHarmony("analysisWe found an agent ID.assistantfinalDone.")).toEqual({
      reasoning: "We found an agent ID.",
      final: "Done.",
    });
    expect(splitHarmony("Just an answer.")).toEqual({ reasoning: "", final: "Just an answer." });
  });
});
