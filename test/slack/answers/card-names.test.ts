import { describe, expect, it } from "vitest";
import { approvalCard } from "../../../src/slack/approval-card.ts";

type Block = {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: Array<{ text?: string }>;
};

const approval = {
  id: "apr_names",
  tool: "send_message",
  args: {
    to: "C0GENERAL",
    text: "standup moved",
    cc: ["U0WANGLEI", "<@U0ZHAOMIN|zhao.min>"],
    group: "S0NETOPS",
  },
  argsSha256: "b".repeat(64),
  requesterId: "U0USER1",
  expiresAt: new Date("2026-11-29T10:15:00Z"),
};

describe("an approval card names people and channels", () => {
  it("keeps the exact ids in the arguments and shows them as Slack references beside them", () => {
    for (const state of [
      { kind: "pending" as const },
      { kind: "decided" as const, status: "rejected" as const, by: "U0ADMIN", at: new Date() },
    ]) {
      const blocks = approvalCard(approval, state).blocks as Block[];
      const args = blocks
        .filter((b) => b.block_id?.startsWith("args"))
        .map((b) => b.text!.text)
        .join("");
      expect(args).toContain('"to": "C0GENERAL"'); // exact, as stored and audited
      const names = blocks.find((b) => b.block_id?.startsWith("names"));
      expect(names?.elements?.[0]?.text).toBe("`cc` <@U0WANGLEI>, <@U0ZHAOMIN|zhao.min> · `to` <#C0GENERAL>");
      // A user group is never written as a reference on a card: that would notify the whole group.
      expect(JSON.stringify(blocks)).not.toContain("subteam");
    }
  });

  it("adds nothing when the arguments name nobody", () => {
    const blocks = approvalCard({ ...approval, args: { title: "URGENT: VPN" } }, { kind: "pending" })
      .blocks as Block[];
    expect(blocks.some((b) => b.block_id?.startsWith("names"))).toBe(false);
  });
});
