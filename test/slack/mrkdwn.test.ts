import fc from "fast-check";
import slackifyMarkdown from "slackify-markdown";
import { describe, expect, it } from "vitest";
import { isPlainProse, markdownToMrkdwn } from "../../src/slack/mrkdwn.ts";

/** What `markdownToMrkdwn` gave before it kept one converter and skipped plain prose. */
const reference = (markdown: string) =>
  slackifyMarkdown(
    markdown.replace(
      /<!(channel|here|everyone|subteam\^[A-Z0-9]+)(\|[^>]*)?>/gi,
      (_m, w: string) => `@${w.replace(/\^.*/, "")}`,
    ),
  )
    .replace(/\u200b/g, "")
    .trim();

// Prose, Markdown and mrkdwn syntax, autolink starts, list markers, odd whitespace, CJK punctuation.
const piece = fc.constantFrom(
  ..."aZé中1 .,;:?!'\"()%/$€°+=-\n_*~`#>[]|&<\\@w。，、—–…‘’“”«»：；？！（）\t".split(""),
  "www.",
  "https://x.io",
  "1. ",
  "2) ",
  "- ",
  "\n\n",
  "  ",
  "**b**",
  "[l](https://e.com)",
  "[r]",
  '\n[r]: https://d.org "t"\n',
  "<!here>",
  "<@U0ADMIN>",
  "😀",
  "\u200b",
);
const text = fc.array(piece, { maxLength: 40 }).map((a) => a.join(""));

describe("markdownToMrkdwn", () => {
  it("gives what slackify-markdown gives, with one converter reused across calls", () => {
    fc.assert(
      fc.property(text, (s) => {
        let expected: string;
        try {
          expected = reference(s);
        } catch {
          return; // the converter's own failures: the next test
        }
        expect(markdownToMrkdwn(s)).toBe(expected);
      }),
      { numRuns: 400 },
    );
    // Link definitions are per call: one answer's `[r]: …` must not resolve another's `[r]`.
    expect(markdownToMrkdwn("See [r].\n\n[r]: https://a.example")).toBe(
      reference("See [r].\n\n[r]: https://a.example"),
    );
    expect(markdownToMrkdwn("See [r].")).toBe(reference("See [r]."));
  });

  it("shows an answer the converter cannot read as escaped plain text instead of throwing", () => {
    expect(() => reference("Try www.% now")).toThrow();
    expect(markdownToMrkdwn("Try www.% now & <later>")).toBe("Try www.% now &amp; &lt;later&gt;");
  });

  it("passes plain prose through unchanged, and only text the converter leaves unchanged counts as plain", () => {
    for (const s of [
      "I opened ticket 42 for the VPN outage (high priority); Wang Lei has it. Anything else?",
      "Done: 3 tickets closed, 50% of the backlog — next review on 2 May.",
      "已为您创建工单，优先级为高。",
      "Line one.\nLine two.\n\nA new paragraph.",
    ]) {
      expect(isPlainProse(s)).toBe(true);
      expect(markdownToMrkdwn(s)).toBe(s);
    }
    for (const s of [
      "**bold**",
      "1. first",
      "a & b",
      "see www.example.com",
      "x\n- y",
      " lead",
      "a\n:-",
      "Status\n:-: done",
      "mail a@b.co",
      "",
    ]) {
      expect(isPlainProse(s)).toBe(false);
    }
    fc.assert(
      fc.property(text, (s) => {
        if (isPlainProse(s)) expect(reference(s)).toBe(s);
      }),
      { numRuns: 10_000 },
    );
  });
});
