import { describe, expect, it } from "vitest";
import { parseKeyValues } from "../../../src/agent/command/command-args.ts";

const sendMessage = { name: "send_message", args: ["to", "text"] };
const values = (text: string, tool?: { name: string; args: string[] }) => {
  const parsed = parseKeyValues(text, tool);
  if (!parsed.ok) throw new Error(`refused: ${parsed.problem}`);
  return parsed.values;
};
const problem = (text: string, tool?: { name: string; args: string[] }) => {
  const parsed = parseKeyValues(text, tool);
  if (parsed.ok) throw new Error(`accepted: ${JSON.stringify(parsed.values)}`);
  return parsed.problem;
};

describe("command mode key=value arguments", () => {
  it("an unquoted value runs until the next key= or the end: no word is dropped", () => {
    expect(values("to=#general text=hello everyone", sendMessage)).toEqual({
      to: "#general",
      text: "hello everyone",
    });
    expect(values("text=hello everyone, standup is at 10:30 to=#general", sendMessage)).toEqual({
      text: "hello everyone, standup is at 10:30",
      to: "#general",
    });
    // Multi-line text, Slack references with spaces inside, and = that is not a key stay in the value.
    expect(
      values("to=<@U0USER1|Li Ming> text=line one\nline two: 2+2=4, see https://x.test/?a=b", sendMessage),
    ).toEqual({
      to: "<@U0USER1|Li Ming>",
      text: "line one\nline two: 2+2=4, see https://x.test/?a=b",
    });
    expect(values("to=<#C0GENERAL|general> text=hi")).toEqual({ to: "<#C0GENERAL|general>", text: "hi" });
  });

  it("quoted values (straight, escaped, curly) end at their closing quote", () => {
    expect(values(`to=#general text="hello everyone" `, sendMessage)).toEqual({
      to: "#general",
      text: "hello everyone",
    });
    expect(values(`text='it\\'s "fine"' to=#ops`, sendMessage)).toEqual({ text: `it's "fine"`, to: "#ops" });
    expect(values("text=“中文 标题” to=‘#ops’", sendMessage)).toEqual({ text: "中文 标题", to: "#ops" });
    expect(values(`text="to=#leads is a key only outside quotes" to=#ops`, sendMessage)).toEqual({
      text: "to=#leads is a key only outside quotes",
      to: "#ops",
    });
    // Spaces around = as people type them; an empty value before the next key stays empty.
    expect(values("to = #general text= hi", sendMessage)).toEqual({ to: "#general", text: "hi" });
    expect(values("to= text=hi", sendMessage)).toEqual({ to: "", text: "hi" });
  });

  it("refuses, with a sentence, whatever it would otherwise have to drop", () => {
    expect(problem("hello to=#general", sendMessage)).toBe(
      '`hello` is not key=value: write the arguments as key=value pairs after the tool\'s name, e.g. `text="two words"`.',
    );
    expect(problem(`to=#general text="hello" everyone`, sendMessage)).toBe(
      "`everyone` after the quoted value of `text=` is not part of it: put the whole value inside the quotes.",
    );
    expect(problem(`to=#general text="hello"everyone`, sendMessage)).toBe(
      "`everyone` right after the closing quote of `text=` is not part of it: put the whole value inside the quotes.",
    );
    expect(problem(`to=#general text="hello everyone`, sendMessage)).toBe(
      'The quote that starts the value of `text=` is never closed: end the value with ", or leave the quotes out.',
    );
    expect(problem("to=#general text=remember to=bring badges", sendMessage)).toBe(
      "`to=` is given twice. Give it once; if `to=` is part of a value, put that value in quotes.",
    );
    // A key the tool does not take would be dropped by the registry: refused, naming the fix.
    expect(problem("to=#general text=set mode=fast please", sendMessage)).toBe(
      '`send_message` has no argument `mode`: its arguments are `to`, `text`. If `mode=` is part of the value of `text`, put that value in quotes: `text="…"`.',
    );
    expect(problem("zone=UTC", { name: "get_current_time", args: [] })).toBe(
      "`get_current_time` has no argument `zone`: it takes no arguments.",
    );
    // Without the tool's argument list (an unknown tool) any key is taken as written.
    expect(values("to=#general text=set mode=fast please")).toEqual({
      to: "#general",
      text: "set",
      mode: "fast please",
    });
  });
});
