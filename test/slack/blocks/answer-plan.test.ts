import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AnswerPlan,
  FALLBACK_MAX,
  MARKDOWN_BLOCK_MAX,
  planAnswer,
  type SlackMessagePayload,
} from "../../../src/slack/answer-blocks.ts";
import { prefersMarkdownBlock } from "../../../src/slack/blocks/answer-style.ts";
import { defuseBroadcasts } from "../../../src/slack/blocks/slack-references.ts";
import { splitMarkdown } from "../../../src/slack/blocks/split-markdown.ts";
import { markdownToMrkdwn } from "../../../src/slack/mrkdwn.ts";
import { createStreamedText } from "../../../src/slack/stream/streamed-text.ts";

type AnyBlock = { type: string; text?: string | { type: string; text: string } };

const messagesOf = (plan: AnswerPlan): SlackMessagePayload[] =>
  plan.kind === "messages" ? plan.messages : [plan.summary];
const blocksOf = (m: SlackMessagePayload) => m.blocks as unknown as AnyBlock[];
const blockText = (b: AnyBlock) => (typeof b.text === "string" ? b.text : (b.text?.text ?? ""));

const TABLE = "| status | tickets |\n|---|---:|\n| open | 2 |\n| closed | 1 |";

describe("which answers go out as a markdown block", () => {
  it("tables, headings and lists do; prose, emphasis, links and code stay mrkdwn sections", () => {
    expect(prefersMarkdownBlock(`Counts:\n\n${TABLE}`)).toBe(true);
    expect(prefersMarkdownBlock("## Summary\nAll good.")).toBe(true);
    expect(prefersMarkdownBlock("Steps:\n- restart\n- check")).toBe(true);
    expect(prefersMarkdownBlock("Steps:\n1. restart\n2. check")).toBe(true);
    expect(prefersMarkdownBlock("All **good**, see [docs](https://x.y) and `a | b`.")).toBe(false);
    // Inside a code block a `#` or a pipe table means nothing.
    expect(prefersMarkdownBlock("Run this:\n```\n# comment\n| a | b |\n|---|---|\n```")).toBe(false);

    const prose = planAnswer("Ticket #12 is **open**.");
    expect(blocksOf(messagesOf(prose)[0]!).map((b) => b.type)).toEqual(["section"]);
  });

  it("an answer with a table is one markdown block holding the Markdown as written, text fallback set", () => {
    const answer = `Tickets this week:\n\n${TABLE}\n\n- most are **open**`;
    const [m, ...more] = messagesOf(planAnswer(answer));
    expect(more).toEqual([]);
    expect(m!.blocks).toEqual([{ type: "markdown", text: answer }]);
    // The notification text is the same answer as mrkdwn: short, never empty.
    expect(m!.text).toContain("Tickets this week:");
    expect(m!.text).toContain("*open*");
    expect(m!.text.length).toBeLessThanOrEqual(FALLBACK_MAX);
  });
});

describe("broadcasts and references in answers", () => {
  const answer = `Heads up <!channel> <!here|here> <!everyone> <!subteam^S0NETOPS|@netops>: ask <@U0BOB> or <@U0CAROL|carol> in <#C0OPS|ops> or <#C0DEV>.`;

  it("markdown block and its fallback: broadcasts defused, people and channels kept as references", () => {
    const [m] = messagesOf(planAnswer(`${answer}\n\n${TABLE}`));
    const text = blockText(blocksOf(m!)[0]!);
    for (const out of [text, m!.text]) {
      expect(out).not.toMatch(/<!(channel|here|everyone|subteam)/);
      expect(out).toContain("Heads up @channel @here @everyone @subteam:");
      expect(out).toContain("<@U0BOB>");
      expect(out).toContain("<@U0CAROL|carol>");
      expect(out).toContain("<#C0OPS|ops>");
      expect(out).toContain("<#C0DEV>");
    }
  });

  it("mrkdwn sections: a channel or person reference with a label is no longer escaped to literal text", () => {
    const [m] = messagesOf(planAnswer(`**Note** ${answer}`));
    const section = blockText(blocksOf(m!)[0]!);
    expect(section).toContain("*Note*");
    expect(section).toContain("<#C0OPS|ops>");
    expect(section).toContain("<@U0CAROL|carol>");
    expect(section).not.toContain("&gt;");
    expect(section).not.toMatch(/<!(channel|here|everyone|subteam)/);
    // Untrusted angle brackets are still escaped; a reference inside a link label is not a way around it.
    expect(markdownToMrkdwn("a < b > c and <#C0OPS|ops>")).toBe("a &lt; b &gt; c and <#C0OPS|ops>");
    expect(markdownToMrkdwn("<!here|<#C0OPS|x>>")).not.toMatch(/<!here/);
  });
});

describe("long answers in markdown blocks", () => {
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => `| row ${i} | ${"x".repeat(24)} |`).join("\n");

  it("splits within the message budget; a table cut in two repeats its header; within chat.update's text limit", () => {
    const plan = planAnswer(`# Rows\n\n| name | value |\n|---|---|\n${rows(400)}\n\nThat is all.`);
    const messages = messagesOf(plan);
    expect(plan.kind).toBe("messages");
    expect(messages.length).toBe(2);
    for (const m of messages) {
      expect(m.blocks).toHaveLength(1);
      const text = blockText(blocksOf(m)[0]!);
      expect(text.length).toBeLessThanOrEqual(MARKDOWN_BLOCK_MAX);
      expect(m.text.length).toBeGreaterThan(0);
      expect(m.text.length).toBeLessThanOrEqual(FALLBACK_MAX); // chat.update allows 4000
    }
    const second = blockText(blocksOf(messages[1]!)[0]!);
    expect(second.startsWith("| name | value |\n|---|---|\n| row ")).toBe(true);
    expect(second.endsWith("That is all.")).toBe(true);
    // Every row once, in order.
    const all = messages.map((m) => blockText(blocksOf(m)[0]!)).join("\n");
    const seen = [...all.matchAll(/\| row (\d+) \|/g)].map((x) => Number(x[1]));
    expect(seen).toEqual(Array.from({ length: 400 }, (_, i) => i));
  });

  it("a very long answer with a table still becomes a file with a short lead", () => {
    const plan = planAnswer(`| name | value |\n|---|---|\n${rows(700)}`);
    expect(plan.kind).toBe("file");
    if (plan.kind === "file") {
      expect(plan.filename).toBe("answer.md");
      expect(plan.content).toContain("| row 699 |");
      expect(blocksOf(plan.summary)).toHaveLength(1);
    }
  });

  it("any Markdown answer: ≤ 50 blocks, blocks within their limits, fallback text 1–3000 characters", () => {
    const line = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom("# Title", "- item", "1. first", "| a | b |\n|---|---|\n| 1 | 2 |", "```", "<!here>"),
    );
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1, max: 60 }),
        (lines, repeat) => {
          const answer = Array.from({ length: repeat }, () => lines.join("\n"))
            .join("\n\n")
            .slice(0, 15_000);
          for (const m of messagesOf(planAnswer(answer))) {
            expect(m.text.length).toBeGreaterThan(0);
            expect(m.text.length).toBeLessThanOrEqual(FALLBACK_MAX);
            expect(m.blocks.length).toBeLessThanOrEqual(50);
            for (const b of blocksOf(m)) {
              const max = b.type === "markdown" ? MARKDOWN_BLOCK_MAX : 3000;
              expect(blockText(b).length).toBeLessThanOrEqual(max);
              expect(blockText(b)).not.toContain("<!here>");
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("splitMarkdown keeps code fences balanced and leaves short text whole", () => {
    expect(splitMarkdown("short", 100)).toEqual(["short"]);
    const pieces = splitMarkdown(`intro\n\`\`\`\n${"code line\n".repeat(500)}\`\`\`\nafter`, 1000);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) expect((p.match(/```/g) ?? []).length % 2).toBe(0);
  });
});

describe("broadcasts while an answer streams", () => {
  it("what is appended never holds a broadcast, however the model's pieces cut it", () => {
    const answer = "Heads up <!here> and <!subteam^S0NET|@net>: <#C0OPS|ops> is busy. ";
    for (let cut = 1; cut < answer.length; cut++) {
      const streamed = createStreamedText((t) => defuseBroadcasts(t));
      const shown = [streamed.add(answer.slice(0, cut)), streamed.add(answer.slice(cut))].join("");
      expect(shown).not.toMatch(/<!(here|subteam)/);
      expect(shown.length).toBeGreaterThan(0);
    }
  });
});
