import { describe, expect, it } from "vitest";
import { reasoningField, splitReasoning } from "../../../src/agent/model/reasoning.ts";
import { threadCpuMs } from "../../security/adversarial-strings.ts";

describe("reasoning is taken out of the answer", () => {
  it("removes a <think> block and keeps it as reasoning", () => {
    expect(splitReasoning("<think>The user wants a ticket.</think>\n\nI opened it.")).toEqual({
      text: "I opened it.",
      reasoning: "The user wants a ticket.",
    });
  });

  it("a closing tag without an opening one: the template opened it (Qwen3, DeepSeek-R1)", () => {
    expect(splitReasoning("Let me think about this.\n</think>\nHere you go.")).toEqual({
      text: "Here you go.",
      reasoning: "Let me think about this.",
    });
  });

  it("an unclosed block is reasoning to the end (cut off while thinking)", () => {
    expect(splitReasoning("<think>still going")).toEqual({ text: "", reasoning: "still going" });
  });

  it("several blocks and other tag names", () => {
    const r = splitReasoning("<thinking>a</thinking>one <reasoning>b</reasoning>two");
    expect(r).toEqual({ text: "one two", reasoning: "a\n\nb" });
  });

  it("text without reasoning is unchanged", () => {
    expect(splitReasoning("Plain <b>answer</b>")).toEqual({ text: "Plain <b>answer</b>", reasoning: "" });
  });

  it("reads the reasoning fields servers use", () => {
    expect(reasoningField({ reasoning_content: " vLLM style " })).toBe("vLLM style");
    expect(reasoningField({ reasoning: "Ollama style" })).toBe("Ollama style");
    expect(reasoningField({ content: "x" })).toBe("");
  });

  it("takes out every block, however many", () => {
    const r = splitReasoning("<think>t</think>a ".repeat(200));
    expect(r.text).toBe(Array(200).fill("a").join(" "));
    expect(r.reasoning.split("\n\n")).toHaveLength(200);
  });

  it("stays linear on hostile input", () => {
    splitReasoning("<think>t</think>a <thinking>".repeat(50_000));
    const started = threadCpuMs();
    splitReasoning("<think>".repeat(100_000));
    splitReasoning(`${"</think>".repeat(100_000)}<think>`);
    expect(threadCpuMs() - started).toBeLessThan(2000);
  });
});
