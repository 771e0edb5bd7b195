import { describe, expect, it } from "vitest";
import { formatSlackDate, parseMrkdwn, toSlackText } from "../../../src/sandbox/web/public/mrkdwn.js";

const text = (t: string) => ({ type: "text", text: t });

describe("the page's mrkdwn parser", () => {
  it("reads bold, italic, strike and code with Slack's word boundaries", () => {
    expect(parseMrkdwn("*bold* _it_ ~gone~ `a*b*` snake_case_name 2*3*4")).toEqual([
      { type: "bold", children: [text("bold")] },
      text(" "),
      { type: "italic", children: [text("it")] },
      text(" "),
      { type: "strike", children: [text("gone")] },
      text(" "),
      { type: "code", text: "a*b*" },
      text(" snake_case_name 2*3*4"),
    ]);
    expect(parseMrkdwn("*bold _and italic_*")).toEqual([
      { type: "bold", children: [text("bold "), { type: "italic", children: [text("and italic")] }] },
    ]);
  });

  it("turns control sequences into mentions, channels, links and dates, and refuses unsafe links", () => {
    expect(
      parseMrkdwn(
        "<@U0USER1> in <#C0OPS|ops>: <https://x.dev/a_b|docs _here_> <javascript:alert(1)|click> <!here>",
      ),
    ).toEqual([
      { type: "user", id: "U0USER1", label: undefined },
      text(" in "),
      { type: "channel", id: "C0OPS", label: "ops" },
      text(": "),
      { type: "link", url: "https://x.dev/a_b", text: "docs _here_" },
      text(" "),
      text("click"),
      text(" "),
      { type: "broadcast", name: "here" },
    ]);
    expect(parseMrkdwn("<!date^1764420000^{date_num}|2025-11-29 12:40 UTC>")).toEqual([
      {
        type: "date",
        ts: 1764420000,
        format: "{date_num}",
        link: undefined,
        fallback: "2025-11-29 12:40 UTC",
      },
    ]);
  });

  it("unescapes &amp; &lt; &gt; into text, and keeps code blocks and quotes apart", () => {
    expect(parseMrkdwn("a &lt;b&gt; &amp;lt; :warning: :nope:")).toEqual([
      text("a <b> &lt; "),
      { type: "emoji", name: "warning", text: "⚠️" },
      text(" :nope:"),
    ]);
    expect(parseMrkdwn('&gt; quoted *x*\nbefore\n```\n{"a": "&lt;"}\n```\nafter')).toEqual([
      { type: "quote", children: [text("quoted "), { type: "bold", children: [text("x")] }] },
      text("before"),
      { type: "pre", text: '{"a": "<"}' },
      text("after"),
    ]);
    expect(parseMrkdwn("```unclosed *b*")).toEqual([
      text("```unclosed "),
      { type: "bold", children: [text("b")] },
    ]);
  });

  it("formats <!date> tokens, and falls back when none is known", () => {
    const now = new Date(1764420000 * 1000 + 90_000);
    expect(formatSlackDate(1764420000, "{date_pretty}", now)).toBe("today");
    expect(formatSlackDate(1764420000, "{ago}", now)).toMatch(/2 minutes ago|1 minute ago/);
    expect(formatSlackDate(1764420000, "{unknown}", now)).toBeUndefined();
  });
});

describe("what the composer sends", () => {
  const users = [
    { id: "U0HERMES", name: "hermes" },
    { id: "U0USER1", name: "li.ming" },
  ];

  it("escapes typed markup and turns @names of known people into <@U…> mentions", () => {
    expect(toSlackText("@hermes ask @li.ming. <b> & @nobody me@hermes.dev", users)).toBe(
      "<@U0HERMES> ask <@U0USER1>. &lt;b&gt; &amp; @nobody me@hermes.dev",
    );
  });

  it("sends #channel as <#C…|name> and finds people by display or real name, at word boundaries only", () => {
    const people = [
      { id: "U0HERMES", name: "hermes", realName: "Hermes" },
      { id: "U0USER1", name: "li.ming", realName: "Li Ming", displayName: "李明" },
    ];
    const channels = [
      { id: "C0GENERAL", name: "general", isIm: false },
      { id: "C0OPS", name: "ops", isIm: false },
      { id: "D0USER1", name: "", isIm: true },
    ];
    expect(toSlackText("@Li Ming see #general, not #ops-team or a#ops; @李明 #OPS", people, channels)).toBe(
      "<@U0USER1> see <#C0GENERAL|general>, not #ops-team or a#ops; <@U0USER1> <#C0OPS|ops>",
    );
    expect(toSlackText("@li.mingo #generally", people, channels)).toBe("@li.mingo #generally");
  });

  it("encodes a slash command's people and channels as Slack does with should_escape: <@U…|handle>, <#C…|name>", () => {
    const people = [{ id: "U0USER1", name: "li.ming", realName: "Li Ming" }];
    const channels = [{ id: "C0OPS", name: "ops", isIm: false }];
    expect(
      toSlackText('schedule add "0 9 * * 1-5" #ops "a & b" @li.ming @Li Ming #nowhere', people, channels, {
        command: true,
      }),
    ).toBe(
      'schedule add "0 9 * * 1-5" <#C0OPS|ops> "a &amp; b" <@U0USER1|li.ming> <@U0USER1|li.ming> #nowhere',
    );
  });
});
