import { describe, expect, it } from "vitest";
import { commandReply } from "../../../src/agent/command/command-reply.ts";
import { readableValue } from "../../../src/agent/command/result-sentences/readable-value.ts";
import { resultSentence } from "../../../src/agent/command/result-sentences/result-sentence.ts";
import { slackRef, slackRefsIn } from "../../../src/agent/command/result-sentences/slack-refs.ts";
import { capResult, serializeResult } from "../../../src/tools/cap-result.ts";

/** What the ticket tools return (`ticketSummary` / `ticketDetail`), as the runtime serializes it. */
const summary = {
  ticket: "#7",
  title: "VPN outage in Shanghai office",
  status: "open",
  priority: "high",
  assignee: null,
  created_by: "U0USER1",
  created_at: "2026-12-07T09:30:00Z",
};
const json = (v: unknown) => serializeResult(v);

describe("command mode results read as sentences", () => {
  it("create_ticket says what was opened and for whom", () => {
    expect(commandReply("create_ticket", json({ created: "#7", ...summary }))).toBe(
      "Opened ticket #7 'VPN outage in Shanghai office' (high), assigned to nobody yet.",
    );
    expect(
      resultSentence(
        "create_ticket",
        json({ ...summary, created: "#8", ticket: "#8", assignee: "U0WANGLEI", attached: ["trace.pcap"] }),
      ),
    ).toBe(
      "Opened ticket #8 'VPN outage in Shanghai office' (high), assigned to <@U0WANGLEI>, with trace.pcap attached.",
    );
    expect(resultSentence("create_ticket", json({ ...summary, assignee: "<!subteam^S0NETOPS>" }))).toContain(
      "assigned to <!subteam^S0NETOPS>",
    );
  });

  it("get_ticket is a short card with people as references", () => {
    const detail = {
      ...summary,
      assignee: "U0WANGLEI",
      description: "Nobody in Shanghai can connect since 9:00.\nSecond line.",
      updated_at: "2026-12-07T10:00:00Z",
      comments: [{ by: "U0USER1", at: "2026-12-07T10:00:00Z", text: "rebooted" }],
      attachments: [
        { name: "a.png", type: "image/png", size: "12 KB" },
        { name: "b.pdf", type: "application/pdf", size: "1 MB" },
      ],
    };
    expect(resultSentence("get_ticket", json(detail))).toBe(
      [
        "*Ticket #7: VPN outage in Shanghai office*",
        "Status: open · Priority: high",
        "Assignee: <@U0WANGLEI>",
        "Created by <@U0USER1> on 2026-12-07",
        "> Nobody in Shanghai can connect since 9:00.",
        "2 attachments · 1 comment",
      ].join("\n"),
    );
    const bare = resultSentence(
      "get_ticket",
      json({ ...summary, description: "", comments: [], attachments: [] }),
    );
    expect(bare).toContain("Assignee: nobody yet");
    expect(bare).toContain("No attachments · no comments");
  });

  it("update_ticket says what changed", () => {
    const r = {
      updated: "#7",
      changes: ["status open → in_progress", "assignee none → U0WANGLEI", "comment added"],
      ticket: { ...summary, status: "in_progress", assignee: "U0WANGLEI" },
    };
    expect(resultSentence("update_ticket", json(r))).toBe(
      "Updated ticket #7 'VPN outage in Shanghai office': status open → in_progress; assignee none → <@U0WANGLEI>; comment added.",
    );
    expect(
      resultSentence(
        "update_ticket",
        json({ ...r, changes: ["attached b.pdf"], already_attached: ["a.png"] }),
      ),
    ).toBe("Updated ticket #7 'VPN outage in Shanghai office': attached b.pdf (a.png was already attached).");
  });

  it("search_tickets is a short list", () => {
    const found = {
      count: 2,
      more: true,
      tickets: [
        summary,
        { ...summary, ticket: "#5", title: "Printer jammed", status: "closed", assignee: "U0USER1" },
      ],
    };
    expect(resultSentence("search_tickets", json(found))).toBe(
      [
        "2 tickets found (more match: narrow the search or raise `limit`):",
        "• #7 VPN outage in Shanghai office (open, high, unassigned)",
        "• #5 Printer jammed (closed, high, <@U0USER1>)",
      ].join("\n"),
    );
    expect(resultSentence("search_tickets", json({ count: 0, tickets: [], note: "No tickets match." }))).toBe(
      "No tickets match.",
    );
  });

  it("any other tool's result reads as words, nested values summarised, never as JSON", () => {
    const sent = json({ sent: true, to: "C0GENERAL", channel: "C0GENERAL", ts: "1700000000.000100" });
    expect(commandReply("send_message", sent)).toBe(
      "`send_message` returned:\nSent: yes\nTo: <#C0GENERAL>\nChannel: <#C0GENERAL>\nTs: 1700000000.000100",
    );
    const nested = json({
      createdBy: "U0USER1",
      rows: [{ a: 1 }, { a: 2 }, { a: 3 }],
      totals: { open: 3, closed: { last_week: 2 } },
      tags: ["vpn", "urgent"],
      note: null,
    });
    const out = resultSentence("ticket_report", nested);
    expect(out).toBe(
      [
        "`ticket_report` returned:",
        "Created by: <@U0USER1>",
        "Rows: 3 items",
        "Totals: open 3, closed 1 field",
        "Tags: vpn, urgent",
        "Note: none",
      ].join("\n"),
    );
    expect(readableValue(Array.from({ length: 12 }, (_, i) => i))).toContain("…and 2 more");
    for (const text of [sent, nested]) expect(commandReply("x", text)).not.toMatch(/[{}"]/);
  });

  it("a text result stays a sentence; a result cut for length says so instead of showing half of it", () => {
    expect(resultSentence("delete_ticket", 'Deleted ticket #7 "VPN".')).toBe('Deleted ticket #7 "VPN".');
    expect(resultSentence("get_current_time", "2026-12-07 09:30 UTC")).toBe(
      "`get_current_time` returned: 2026-12-07 09:30 UTC",
    );
    const long = capResult(json({ rows: Array.from({ length: 500 }, (_, i) => ({ i })) }), 200, "res_1").text;
    expect(resultSentence("search_tickets", long)).toMatch(
      /^`search_tickets` returned a result too long to show here: \d+ characters \(kept as `res_1`\)\./,
    );
  });

  it("ids become Slack references; words and references already written are left alone", () => {
    expect(slackRef("U0WANGLEI")).toBe("<@U0WANGLEI>");
    expect(slackRef("C0OPS")).toBe("<#C0OPS>");
    expect(slackRef("URGENT")).toBe("URGENT");
    expect(slackRefsIn("assignee <@U0A1> → U0ZHAOMIN, in C0OPS")).toBe(
      "assignee <@U0A1> → <@U0ZHAOMIN>, in <#C0OPS>",
    );
  });
});
