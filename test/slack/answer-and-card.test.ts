import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MESSAGE_TEXT_BUDGET, planAnswer } from "../../src/slack/answer-blocks.ts";
import { APPROVE_ACTION, approvalCard, REJECT_ACTION } from "../../src/slack/approval-card.ts";
import { markdownToMrkdwn } from "../../src/slack/mrkdwn.ts";
import { sessionKey } from "../../src/slack/session-key.ts";
import { splitText } from "../../src/slack/split-text.ts";

type Block = {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: Array<Record<string, unknown>>;
};
type MarkdownBlock = { type: "markdown"; text: string };

describe("answers within Slack's limits", () => {
  it("Markdown becomes mrkdwn; broadcast mentions are defused, user mentions kept", () => {
    const out = markdownToMrkdwn("**Done** <!channel> <!here|here> <@U0ADMIN> [docs](https://x.y) a < b & c");
    expect(out).toContain("*Done*");
    expect(out).not.toMatch(/<!channel>|<!here/);
    expect(out).toContain("<@U0ADMIN>");
    expect(out).toContain("<https://x.y|docs>");
    expect(out).toContain("a &lt; b &amp; c");
  });

  it("splits long answers: sections ≤ 3000, ≤ 50 blocks and ≤ ~11k chars per message, text fallback set", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 4000 }), { minLength: 1, maxLength: 12 }),
        (paras) => {
          const plan = planAnswer(paras.join("\n\n"));
          const messages = plan.kind === "messages" ? plan.messages : [plan.summary];
          for (const m of messages) {
            expect(m.text.length).toBeGreaterThan(0);
            expect(m.text.length).toBeLessThanOrEqual(3000);
            expect(m.blocks.length).toBeLessThanOrEqual(50);
            // A list or heading in the text makes it one `markdown` block (text a string, ≤ 12,000;
            // a table cut in two may repeat its header, ≤ 1000 more); otherwise mrkdwn sections.
            const textOf = (b: Block | MarkdownBlock) => (typeof b.text === "string" ? b.text : b.text!.text);
            const blocks = m.blocks as Array<Block | MarkdownBlock>;
            const total = blocks.reduce((n, b) => n + textOf(b).length, 0);
            const markdown = blocks.some((b) => b.type === "markdown");
            expect(total).toBeLessThanOrEqual(MESSAGE_TEXT_BUDGET + (markdown ? 1000 : 100));
            if (markdown) expect(blocks).toHaveLength(1);
            for (const b of blocks) expect(textOf(b).length).toBeLessThanOrEqual(markdown ? 12_000 : 3000);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a very long answer becomes a file with a short lead message", () => {
    const plan = planAnswer("word ".repeat(20_000));
    expect(plan.kind).toBe("file");
    if (plan.kind === "file") {
      expect(plan.filename).toBe("answer.md");
      expect(plan.summary.blocks).toHaveLength(1);
    }
  });

  it("splitText keeps code fences balanced in every piece", () => {
    const text = `intro\n\`\`\`\n${"line of code\n".repeat(800)}\`\`\`\nafter`;
    const pieces = splitText(text, 2900);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(2900);
      expect((p.match(/```/g) ?? []).length % 2).toBe(0);
    }
  });
});

describe("approval card", () => {
  const approval = {
    id: "apr_abc",
    tool: "send_message",
    args: { text: "I'll join at <three> & bring <!channel>", to: "U0WANGLEI" },
    argsSha256: "a".repeat(64),
    requesterId: "U0USER1",
    expiresAt: new Date("2026-11-29T10:15:00Z"),
  };

  it("pending: who asked, exact args (sorted, escaped), expiry, two buttons with the approval id", () => {
    const card = approvalCard(approval, { kind: "pending" });
    const blocks = card.blocks as Block[];
    expect(card.text).toBe("Approval needed: <@U0USER1> asked me to run send_message");
    expect(blocks[0]!.text!.text).toContain("<@U0USER1> asked me to run `send_message`");
    const args = blocks[1]!.text!.text;
    expect(args.indexOf('"text"')).toBeLessThan(args.indexOf('"to"'));
    expect(args).toContain("&lt;three&gt; &amp; bring &lt;!channel&gt;");
    const actions = blocks.find((b) => b.type === "actions")!;
    expect(actions.elements!.map((e) => [e.action_id, e.style, e.value])).toEqual([
      [APPROVE_ACTION, "primary", "apr_abc"],
      [REJECT_ACTION, "danger", "apr_abc"],
    ]);
    expect(actions.elements![0]).not.toHaveProperty("confirm");
    expect(approvalCard(approval, { kind: "pending" })).toEqual(card); // deterministic
  });

  it("dangerous tools get a confirm dialog within Slack's limits", () => {
    const card = approvalCard({ ...approval, tool: "delete_ticket", dangerous: true }, { kind: "pending" });
    const confirm = (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!
      .confirm as Record<string, { text: string }>;
    expect(confirm.title!.text.length).toBeLessThanOrEqual(100);
    expect(confirm.text!.text.length).toBeLessThanOrEqual(300);
  });

  it("decided: buttons gone, who and when, outcome; block ids differ from the pending card", () => {
    const pending = approvalCard(approval, { kind: "pending" }).blocks as Block[];
    const decided = approvalCard(approval, {
      kind: "decided",
      status: "approved",
      by: "U0ADMIN",
      at: new Date("2026-11-29T10:01:00Z"),
      outcome: "Result: sent.",
    }).blocks as Block[];
    expect(decided.some((b) => b.type === "actions")).toBe(false);
    const meta = JSON.stringify(decided.at(-1));
    expect(meta).toContain("Approved by <@U0ADMIN>");
    expect(meta).toContain("Result: sent.");
    const pendingIds = new Set(pending.map((b) => b.block_id));
    for (const b of decided) expect(pendingIds.has(b.block_id)).toBe(false);
  });

  it("huge arguments are shown in part and say so", () => {
    const card = approvalCard({ ...approval, args: { text: "x".repeat(20_000) } }, { kind: "pending" });
    const texts = (card.blocks as Block[]).flatMap((b) => (b.text ? [b.text.text] : []));
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(3000);
    expect(texts.at(-1)).toContain("more characters of arguments");
  });
});

describe("session key", () => {
  it("is team:channel:thread_ts, or the message ts when not in a thread", () => {
    expect(sessionKey({ teamId: "T0001", channelId: "C0OPS", ts: "1.2", threadTs: "1.0" })).toBe(
      "T0001:C0OPS:1.0",
    );
    expect(sessionKey({ teamId: "T0001", channelId: "D0USER1", ts: "1.2" })).toBe("T0001:D0USER1:1.2");
  });
});
