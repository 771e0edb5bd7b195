import { describe, expect, it } from "vitest";
import { parseMarkdown } from "../../../src/sandbox/web/public/markdown.js";

const text = (t: string) => ({ type: "text", text: t });

describe("the page's Markdown parser (markdown blocks)", () => {
  it("headings, paragraphs, lists (nested), quotes, code and rules", () => {
    expect(
      parseMarkdown(
        "# Title\n\nOne\nline two\n\n- a\n  - a1\n- b\n\n3. c\n\n> q\n\n```\n# not a heading\n```\n---",
      ),
    ).toEqual([
      { type: "heading", level: 1, children: [text("Title")] },
      { type: "paragraph", children: [text("One\nline two")] },
      {
        type: "list",
        ordered: false,
        start: 1,
        items: [
          {
            children: [text("a")],
            blocks: [
              { type: "list", ordered: false, start: 1, items: [{ children: [text("a1")], blocks: [] }] },
            ],
          },
          { children: [text("b")], blocks: [] },
        ],
      },
      { type: "list", ordered: true, start: 3, items: [{ children: [text("c")], blocks: [] }] },
      { type: "blockquote", children: [{ type: "paragraph", children: [text("q")] }] },
      { type: "pre", text: "# not a heading" },
      { type: "rule" },
    ]);
  });

  it("tables with alignment, escaped pipes and short rows padded", () => {
    const [table] = parseMarkdown("| name | n |\n|:---|---:|\n| a \\| b | **2** |\n| c |");
    expect(table).toEqual({
      type: "table",
      align: ["left", "right"],
      header: [[text("name")], [text("n")]],
      rows: [
        [[text("a | b")], [{ type: "bold", children: [text("2")] }]],
        [[text("c")], []],
      ],
    });
  });

  it("inline: emphasis, code, safe links only, and Slack references as mentions", () => {
    const [p] = parseMarkdown(
      "**b** *i* _j_ ~~s~~ `<@U1>` [ok](https://x.y) [bad](javascript:alert(1)) <@U0BOB> <#C0OPS|ops> <!here> :tada:",
    );
    expect(p).toEqual({
      type: "paragraph",
      children: [
        { type: "bold", children: [text("b")] },
        text(" "),
        { type: "italic", children: [text("i")] },
        text(" "),
        { type: "italic", children: [text("j")] },
        text(" "),
        { type: "strike", children: [text("s")] },
        text(" "),
        { type: "code", text: "<@U1>" },
        text(" "),
        { type: "link", url: "https://x.y", text: "ok" },
        text(" bad) "), // an unsafe link shows its label only
        { type: "user", id: "U0BOB" },
        text(" "),
        { type: "channel", id: "C0OPS", label: "ops" },
        text(" "),
        { type: "broadcast", name: "here" },
        text(" "),
        { type: "emoji", name: "tada", text: "🎉" },
      ],
    });
  });
});
